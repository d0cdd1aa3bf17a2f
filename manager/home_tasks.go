package manager

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/mcpwire/mcpwire/internal/safe"
)

// TaskFile is the home's file of tasks: which server holds each task id,
// so that another process can follow it (`mcpwire task wait`), as the
// Tasks extension asks clients to keep task ids durably. It is 0600,
// written atomically under its lock, at most maxTaskRecords entries (the
// newest kept).
const TaskFile = "tasks.json"

// maxTaskRecords bounds the task file.
const maxTaskRecords = 256

// A TaskRecord is one task the home knows of.
type TaskRecord struct {
	Server  string    `json:"server"`           // the server's name (or the target as given)
	ID      string    `json:"taskId"`           // the server's task id
	Tool    string    `json:"tool,omitempty"`   // the tool called
	Status  string    `json:"status,omitempty"` // the last status seen
	Created time.Time `json:"created"`
	Seen    time.Time `json:"seen"` // when Status was seen
}

type taskFile struct {
	Version int          `json:"version"`
	Tasks   []TaskRecord `json:"tasks"`
}

// Tasks returns the tasks the home knows of, newest first; a missing or
// unreadable file holds none.
func (h *Home) Tasks() []TaskRecord {
	return h.readTasks().Tasks
}

// Task returns the record of server's task id, if the home has one.
func (h *Home) Task(server, id string) (TaskRecord, bool) {
	for _, r := range h.Tasks() {
		if r.Server == server && r.ID == id {
			return r, true
		}
	}
	return TaskRecord{}, false
}

// RememberTask records r (replacing the record of the same server and
// id).
func (h *Home) RememberTask(r TaskRecord) error {
	if r.Seen.IsZero() {
		r.Seen = time.Now()
	}
	return h.updateTasks(func(f *taskFile) {
		if i := f.index(r.Server, r.ID); i >= 0 {
			if r.Created.IsZero() {
				r.Created = f.Tasks[i].Created
			}
			if r.Tool == "" {
				r.Tool = f.Tasks[i].Tool
			}
			f.Tasks = slices.Delete(f.Tasks, i, i+1)
		}
		if r.Created.IsZero() {
			r.Created = r.Seen
		}
		f.Tasks = append([]TaskRecord{r}, f.Tasks...)
	})
}

// ForgetTask drops the record of server's task id.
func (h *Home) ForgetTask(server, id string) error {
	return h.updateTasks(func(f *taskFile) {
		if i := f.index(server, id); i >= 0 {
			f.Tasks = slices.Delete(f.Tasks, i, i+1)
		}
	})
}

func (f *taskFile) index(server, id string) int {
	return slices.IndexFunc(f.Tasks, func(r TaskRecord) bool { return r.Server == server && r.ID == id })
}

func (h *Home) taskPath() string { return filepath.Join(h.dir, TaskFile) }

func (h *Home) readTasks() *taskFile {
	f := &taskFile{Version: 1}
	data, err := safe.ReadFile(h.taskPath(), safe.KindCache)
	if err != nil {
		return f
	}
	var got taskFile
	if json.Unmarshal(data, &got) == nil && got.Version == 1 {
		f.Tasks = got.Tasks
	}
	return f
}

// updateTasks changes the task file under its lock.
func (h *Home) updateTasks(change func(*taskFile)) error {
	if err := os.MkdirAll(h.dir, 0o700); err != nil {
		return err
	}
	path := h.taskPath()
	lock, err := safe.Lock(path)
	if err != nil {
		return err
	}
	defer lock.Unlock()
	f := h.readTasks()
	change(f)
	if len(f.Tasks) > maxTaskRecords {
		f.Tasks = f.Tasks[:maxTaskRecords]
	}
	data, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		return err
	}
	return safe.WritePrivate(path, append(data, '\n'))
}
