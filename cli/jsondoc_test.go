package cli

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	demoserver "github.com/mcpwire/mcpwire/internal/demo"
	"github.com/mcpwire/mcpwire/internal/fakeauth"
	"github.com/mcpwire/mcpwire/internal/proctest"
)

// The shapes below are the Go description of docs/json.md: one struct per
// document (the header apart), one per shared shape. A member without
// omitempty must be present; with it, it may be missing. A list must be a
// list (never null); a pointer may be null; any and json.RawMessage take
// any JSON value. TestJSONDocuments decodes every command's document
// against them, TestJSONDocsMatchShapes checks them against the page.

type jHeader struct {
	Schema  int    `json:"schema"`
	Command string `json:"command"`
	OK      bool   `json:"ok"`
}

type jError struct {
	Server  string   `json:"server"`
	Phase   string   `json:"phase"`
	Code    string   `json:"code"`
	Message string   `json:"message"`
	Hints   []string `json:"hints"`
	Stderr  string   `json:"stderr"`
}

type jSessions struct {
	Sessions []struct {
		Name             string `json:"name"`
		Pid              int    `json:"pid"`
		ServerPid        int    `json:"serverPid"`
		Since            string `json:"since"`
		IdleSeconds      int    `json:"idleSeconds"`
		IdleLimitSeconds int    `json:"idleLimitSeconds"`
		Calls            int    `json:"calls"`
		State            string `json:"state"`
		Transport        string `json:"transport"`
		Protocol         string `json:"protocol"`
		Restarts         int    `json:"restarts"`
		Error            string `json:"error,omitempty"`
	} `json:"sessions"`
}

type jFailure struct {
	Error jError `json:"error"`
}

type jListServer struct {
	Server    string    `json:"server"`
	Source    string    `json:"source"`
	Scope     string    `json:"scope"`
	Transport string    `json:"transport"`
	Target    string    `json:"target"`
	Enabled   bool      `json:"enabled"`
	Approval  string    `json:"approval"`
	Auth      string    `json:"auth"`
	State     string    `json:"state"`
	Protocol  string    `json:"protocol"`
	Era       string    `json:"era"`
	ToolCount int       `json:"toolCount"`
	Error     *jError   `json:"error,omitempty"`
	Surface   *jSurface `json:"surface,omitempty"`
	Sandbox   *jSandbox `json:"sandbox"`
	Cached    *jCached  `json:"cached,omitempty"`
}

type jSandbox struct {
	Network    string `json:"network"`
	BestEffort bool   `json:"bestEffort"`
	Layers     []struct {
		From       string   `json:"from"`
		Network    string   `json:"network"`
		Read       []string `json:"read"`
		Write      []string `json:"write"`
		BestEffort bool     `json:"bestEffort"`
	} `json:"layers"`
}

type jCached struct {
	SavedAt string `json:"savedAt"`
	AgeMs   int    `json:"ageMs"`
}

type jSurface struct {
	Pin                 string   `json:"pin"`
	NewTools            string   `json:"newTools"`
	Pinned              bool     `json:"pinned"`
	Quarantined         []string `json:"quarantined"`
	Changed             []string `json:"changed"`
	Added               []string `json:"added"`
	Removed             []string `json:"removed"`
	InstructionsChanged bool     `json:"instructionsChanged"`
	Error               string   `json:"error,omitempty"`
}

type jList struct {
	Servers   []jListServer `json:"servers"`
	Failed    int           `json:"failed"`
	NeedApp   int           `json:"needApproval"`
	NeedLogin int           `json:"needLogin"`
	Warnings  []string      `json:"warnings"`
}

type jIcon struct {
	Src      string   `json:"src"`
	MimeType string   `json:"mimeType,omitempty"`
	Sizes    []string `json:"sizes,omitempty"`
	Theme    string   `json:"theme,omitempty"`
}

type jImplementation struct {
	Name        string  `json:"name"`
	Title       string  `json:"title,omitempty"`
	Version     string  `json:"version"`
	Description string  `json:"description,omitempty"`
	WebsiteURL  string  `json:"websiteUrl,omitempty"`
	Icons       []jIcon `json:"icons,omitempty"`
}

type jListChanged struct {
	ListChanged bool `json:"listChanged,omitempty"`
}

type jCapabilities struct {
	Experimental any           `json:"experimental,omitempty"`
	Logging      any           `json:"logging,omitempty"`
	Completions  any           `json:"completions,omitempty"`
	Prompts      *jListChanged `json:"prompts,omitempty"`
	Resources    *struct {
		Subscribe   bool `json:"subscribe,omitempty"`
		ListChanged bool `json:"listChanged,omitempty"`
	} `json:"resources,omitempty"`
	Tools *jListChanged `json:"tools,omitempty"`
	Tasks any           `json:"tasks,omitempty"`
}

type jToolAnnotations struct {
	Title           string `json:"title,omitempty"`
	ReadOnlyHint    *bool  `json:"readOnlyHint,omitempty"`
	DestructiveHint *bool  `json:"destructiveHint,omitempty"`
	IdempotentHint  *bool  `json:"idempotentHint,omitempty"`
	OpenWorldHint   *bool  `json:"openWorldHint,omitempty"`
}

type jExecution struct {
	TaskSupport string `json:"taskSupport,omitempty"`
}

type jTool struct {
	Name         string            `json:"name"`
	Title        string            `json:"title,omitempty"`
	Description  string            `json:"description,omitempty"`
	InputSchema  any               `json:"inputSchema,omitempty"`
	OutputSchema any               `json:"outputSchema,omitempty"`
	Annotations  *jToolAnnotations `json:"annotations,omitempty"`
	Execution    *jExecution       `json:"execution,omitempty"`
	Icons        []jIcon           `json:"icons,omitempty"`
	Meta         any               `json:"_meta,omitempty"`
}

type jAnnotations struct {
	Audience     []string `json:"audience,omitempty"`
	Priority     *float64 `json:"priority,omitempty"`
	LastModified string   `json:"lastModified,omitempty"`
}

type jResource struct {
	URI         string        `json:"uri"`
	Name        string        `json:"name"`
	Title       string        `json:"title,omitempty"`
	Description string        `json:"description,omitempty"`
	MimeType    string        `json:"mimeType,omitempty"`
	Size        *int64        `json:"size,omitempty"`
	Annotations *jAnnotations `json:"annotations,omitempty"`
	Icons       []jIcon       `json:"icons,omitempty"`
	Meta        any           `json:"_meta,omitempty"`
}

type jResourceTemplate struct {
	URITemplate string        `json:"uriTemplate"`
	Name        string        `json:"name"`
	Title       string        `json:"title,omitempty"`
	Description string        `json:"description,omitempty"`
	MimeType    string        `json:"mimeType,omitempty"`
	Annotations *jAnnotations `json:"annotations,omitempty"`
	Icons       []jIcon       `json:"icons,omitempty"`
	Meta        any           `json:"_meta,omitempty"`
}

type jPromptArgument struct {
	Name        string `json:"name"`
	Title       string `json:"title,omitempty"`
	Description string `json:"description,omitempty"`
	Required    bool   `json:"required,omitempty"`
}

type jPrompt struct {
	Name        string            `json:"name"`
	Title       string            `json:"title,omitempty"`
	Description string            `json:"description,omitempty"`
	Arguments   []jPromptArgument `json:"arguments,omitempty"`
	Icons       []jIcon           `json:"icons,omitempty"`
	Meta        any               `json:"_meta,omitempty"`
}

type jResourceContents struct {
	URI      string `json:"uri"`
	MimeType string `json:"mimeType,omitempty"`
	Text     string `json:"text,omitempty"`
	Blob     string `json:"blob,omitempty"`
	Meta     any    `json:"_meta,omitempty"`
}

type jContent struct {
	Type        string             `json:"type"`
	Text        string             `json:"text,omitempty"`
	Data        string             `json:"data,omitempty"`
	MimeType    string             `json:"mimeType,omitempty"`
	URI         string             `json:"uri,omitempty"`
	Name        string             `json:"name,omitempty"`
	Title       string             `json:"title,omitempty"`
	Description string             `json:"description,omitempty"`
	Size        *int64             `json:"size,omitempty"`
	Icons       []jIcon            `json:"icons,omitempty"`
	Resource    *jResourceContents `json:"resource,omitempty"`
	Annotations *jAnnotations      `json:"annotations,omitempty"`
	Meta        any                `json:"_meta,omitempty"`
}

type jTest struct {
	Server            string              `json:"server"`
	Transport         string              `json:"transport"`
	Target            string              `json:"target"`
	ServerInfo        jImplementation     `json:"serverInfo"`
	Protocol          string              `json:"protocol"`
	Era               string              `json:"era"`
	Capabilities      jCapabilities       `json:"capabilities"`
	Instructions      string              `json:"instructions"`
	Tools             []jTool             `json:"tools"`
	Resources         []jResource         `json:"resources"`
	ResourceTemplates []jResourceTemplate `json:"resourceTemplates"`
	Prompts           []jPrompt           `json:"prompts"`
	Warnings          []string            `json:"warnings"`
	TimingMs          map[string]int      `json:"timingMs"`
	UIResources       map[string]string   `json:"uiResources"`
	Surface           *jSurface           `json:"surface,omitempty"`
	Sandbox           *jSandbox           `json:"sandbox"`
}

type jCall struct {
	Server            string         `json:"server"`
	Tool              string         `json:"tool"`
	IsError           bool           `json:"isError"`
	Content           []jContent     `json:"content"`
	StructuredContent any            `json:"structuredContent"`
	OutputProblem     string         `json:"outputProblem"`
	TimingMs          map[string]int `json:"timingMs"`
	TaskID            string         `json:"taskId"`
}

type jSkillFile struct {
	URI    string `json:"uri"`
	Path   string `json:"path"`
	Size   int    `json:"size"`
	Digest string `json:"digest"`
}

type jSkillBrief struct {
	Name        string       `json:"name"`
	URI         string       `json:"uri"`
	Description string       `json:"description"`
	Frontmatter any          `json:"frontmatter"`
	Dynamic     bool         `json:"dynamic"`
	Files       []jSkillFile `json:"files"`
}

type jSkills struct {
	Server string        `json:"server"`
	Skills []jSkillBrief `json:"skills"`
}

type jSkill struct {
	Server string       `json:"server"`
	Name   string       `json:"name"`
	URI    string       `json:"uri"`
	Files  []jSkillFile `json:"files"`
	Out    string       `json:"out"`
}

type jTask struct {
	Server         string `json:"server"`
	Tool           string `json:"tool"`
	TaskID         string `json:"taskId"`
	Status         string `json:"status"`
	StatusMessage  string `json:"statusMessage"`
	CreatedAt      string `json:"createdAt"`
	LastUpdatedAt  string `json:"lastUpdatedAt"`
	TTLMs          *int   `json:"ttlMs"`
	PollIntervalMs int    `json:"pollIntervalMs"`
}

type jRead struct {
	Server   string              `json:"server"`
	URI      string              `json:"uri"`
	Contents []jResourceContents `json:"contents"`
	Out      string              `json:"out"`
}

type jPromptDoc struct {
	Server      string `json:"server"`
	Prompt      string `json:"prompt"`
	Description string `json:"description"`
	Messages    []struct {
		Role    string   `json:"role"`
		Content jContent `json:"content"`
	} `json:"messages"`
}

type jComplete struct {
	Server  string   `json:"server"`
	Values  []string `json:"values"`
	Total   *int     `json:"total"`
	HasMore bool     `json:"hasMore"`
}

type jLogin struct {
	Server          string   `json:"server"`
	LoginNeeded     bool     `json:"loginNeeded"`
	AlreadyLoggedIn bool     `json:"alreadyLoggedIn"`
	Scopes          []string `json:"scopes"`
	Refreshable     bool     `json:"refreshable"`
	Expires         string   `json:"expires"`
	AuthURL         string   `json:"authorizationUrl"`
	UserCode        string   `json:"userCode"`
	VerifyURI       string   `json:"verificationUri"`
	VerifyComplete  string   `json:"verificationUriComplete"`
}

type jLogout struct {
	Server   string `json:"server"`
	LoggedIn bool   `json:"loggedIn"`
	Revoked  bool   `json:"revoked"`
	Result   string `json:"result"`
	RevokeEr string `json:"revokeError"`
}

type jConfig struct {
	Servers []struct {
		Server   string   `json:"server"`
		Source   string   `json:"source"`
		Scope    string   `json:"scope"`
		Result   string   `json:"result"`
		Reason   string   `json:"reason"`
		Warnings []string `json:"warnings"`
	} `json:"servers"`
}

type jSearch struct {
	Registry string `json:"registry"`
	Servers  []struct {
		Name          string   `json:"name"`
		Title         string   `json:"title"`
		Description   string   `json:"description"`
		Version       string   `json:"version"`
		Status        string   `json:"status"`
		StatusMessage string   `json:"statusMessage"`
		Packages      []string `json:"packages"`
		Remotes       []string `json:"remotes"`
	} `json:"servers"`
	Skipped int `json:"skipped"`
}

type jInstall struct {
	Servers []struct {
		Server      string   `json:"server"`
		Name        string   `json:"name"`
		Version     string   `json:"version"`
		Previous    string   `json:"previous"`
		Result      string   `json:"result"`
		Source      string   `json:"source"`
		Scope       string   `json:"scope"`
		Via         string   `json:"via"`
		Artifact    string   `json:"artifact"`
		Digest      string   `json:"digest"`
		Secrets     []string `json:"secrets"`
		Warnings    []string `json:"warnings"`
		PostInstall []string `json:"postInstall"`
		Tools       string   `json:"tools"`
		ToolsNote   string   `json:"toolsNote"`
	} `json:"servers"`
}

type jOutdated struct {
	Servers []struct {
		Server        string `json:"server"`
		Source        string `json:"source"`
		Name          string `json:"name"`
		Registry      string `json:"registry"`
		Installed     string `json:"installed"`
		Latest        string `json:"latest"`
		Status        string `json:"status"`
		StatusMessage string `json:"statusMessage"`
		Outdated      bool   `json:"outdated"`
		Problem       string `json:"problem"`
	} `json:"servers"`
}

type jSync struct {
	Lock    string `json:"lock"`
	Frozen  bool   `json:"frozen"`
	Servers []struct {
		Server  string `json:"server"`
		Name    string `json:"name"`
		Version string `json:"version"`
		Result  string `json:"result"`
		Drift   string `json:"drift"`
	} `json:"servers"`
}

type jGet struct {
	Server     string         `json:"server"`
	Source     string         `json:"source"`
	Scope      string         `json:"scope"`
	Transport  string         `json:"transport"`
	Target     string         `json:"target"`
	Enabled    bool           `json:"enabled"`
	Approval   string         `json:"approval"`
	WorkDir    string         `json:"workDir"`
	Problem    string         `json:"problem"`
	Warnings   []string       `json:"warnings"`
	Definition map[string]any `json:"definition"`
}

type jDoctor struct {
	Servers []struct {
		Server    string `json:"server"`
		Transport string `json:"transport"`
		Target    string `json:"target"`
		OK        bool   `json:"ok"`
		Checks    []struct {
			Phase  string `json:"phase"`
			Status string `json:"status"`
			Detail string `json:"detail"`
			Hint   string `json:"hint"`
		} `json:"checks"`
	} `json:"servers"`
	Sandbox string `json:"sandbox"`
}

type jProbe struct {
	Server     string           `json:"server"`
	Transport  string           `json:"transport"`
	Target     string           `json:"target"`
	Protocol   string           `json:"protocol"`
	Era        string           `json:"era"`
	Eras       string           `json:"eras"`
	LegacySSE  bool             `json:"legacySse"`
	ServerInfo *jImplementation `json:"serverInfo,omitempty"`
	Revisions  []struct {
		Protocol     string         `json:"protocol"`
		Era          string         `json:"era"`
		OK           bool           `json:"ok"`
		Capabilities []string       `json:"capabilities"`
		Error        *jError        `json:"error,omitempty"`
		TimingMs     map[string]int `json:"timingMs"`
	} `json:"revisions"`
}

type jToolDoc struct {
	Server      string `json:"server"`
	Tool        string `json:"tool"`
	Title       string `json:"title"`
	Description string `json:"description"`
	Parameters  []struct {
		Name        string   `json:"name"`
		Type        string   `json:"type"`
		Required    bool     `json:"required"`
		Description string   `json:"description"`
		Enum        []string `json:"enum"`
	} `json:"parameters"`
	Example     string         `json:"example"`
	InputSchema map[string]any `json:"inputSchema"`
}

type jImport struct {
	From    string   `json:"from"`
	Files   []string `json:"files"`
	File    string   `json:"file"`
	Scope   string   `json:"scope"`
	Written bool     `json:"written"`
	Servers []struct {
		Name        string         `json:"server"`
		Source      string         `json:"source"`
		SourceScope string         `json:"sourceScope"`
		Origin      string         `json:"origin"`
		Transport   string         `json:"transport"`
		Target      string         `json:"target"`
		Action      string         `json:"action"`
		Reason      string         `json:"reason"`
		Notes       []string       `json:"notes"`
		Definition  map[string]any `json:"definition"`
	} `json:"servers"`
}

type jServerIdentity struct {
	Name    string `json:"name"`
	Title   string `json:"title,omitempty"`
	Version string `json:"version"`
}

type jSnapshot struct {
	Server       string          `json:"server"`
	ServerInfo   jServerIdentity `json:"serverInfo"`
	Protocol     string          `json:"protocol"`
	Era          string          `json:"era"`
	Capabilities map[string]any  `json:"capabilities"`
	Instructions string          `json:"instructions,omitempty"`
	Tools        []struct {
		Name         string            `json:"name"`
		Title        string            `json:"title,omitempty"`
		Description  string            `json:"description,omitempty"`
		InputSchema  map[string]any    `json:"inputSchema"`
		OutputSchema map[string]any    `json:"outputSchema,omitempty"`
		Annotations  *jToolAnnotations `json:"annotations,omitempty"`
		Execution    *jExecution       `json:"execution,omitempty"`
		UIResource   string            `json:"uiResource,omitempty"`
	} `json:"tools"`
	Resources []struct {
		URI         string   `json:"uri"`
		Name        string   `json:"name"`
		Title       string   `json:"title,omitempty"`
		Description string   `json:"description,omitempty"`
		MimeType    string   `json:"mimeType,omitempty"`
		Audience    []string `json:"audience,omitempty"`
	} `json:"resources"`
	ResourceTemplates []struct {
		URITemplate string `json:"uriTemplate"`
		Name        string `json:"name"`
		Title       string `json:"title,omitempty"`
		Description string `json:"description,omitempty"`
		MimeType    string `json:"mimeType,omitempty"`
	} `json:"resourceTemplates"`
	Prompts []jPrompt `json:"prompts"`
	Client  *struct {
		Protocol         string         `json:"protocol"`
		Era              string         `json:"era"`
		Capabilities     map[string]any `json:"capabilities"`
		Roots            []string       `json:"roots"`
		Elicitation      string         `json:"elicitation"`
		ElicitationModes []string       `json:"elicitationModes"`
		Sampling         string         `json:"sampling"`
	} `json:"client,omitempty"`
}

type jBudget struct {
	Estimate string `json:"estimate"`
	Bytes    int    `json:"bytes"`
	Tokens   int    `json:"tokens"`
	Servers  []struct {
		Server            string `json:"server"`
		Bytes             int    `json:"bytes"`
		Tokens            int    `json:"tokens"`
		InstructionsBytes int    `json:"instructionsBytes"`
		Tools             []struct {
			Name   string `json:"name"`
			Bytes  int    `json:"bytes"`
			Tokens int    `json:"tokens"`
		} `json:"tools"`
		EnabledTools *[]string `json:"enabledTools"`
		Error        *jError   `json:"error,omitempty"`
	} `json:"servers"`
	Failed    int `json:"failed"`
	MaxTokens int `json:"maxTokens"`
}

type jSnapshotOut struct {
	Server string         `json:"server"`
	File   string         `json:"file"`
	Counts map[string]int `json:"counts"`
}

type jDiffSide struct {
	Source     string          `json:"source"`
	Kind       string          `json:"kind"`
	Server     string          `json:"server"`
	ServerInfo jServerIdentity `json:"serverInfo"`
}

type jDiff struct {
	Old        jDiffSide `json:"old"`
	New        jDiffSide `json:"new"`
	FailOn     string    `json:"failOn"`
	Breaking   int       `json:"breaking"`
	Compatible int       `json:"compatible"`
	Accepted   int       `json:"accepted"`
	Changes    []jChange `json:"changes"`
}

// jChange is a change of diff (and of verify's lists).
type jChange struct {
	Class    string `json:"class"`
	Item     string `json:"item"`
	Name     string `json:"name"`
	Path     string `json:"path"`
	Change   string `json:"change"`
	Message  string `json:"message"`
	Accepted bool   `json:"accepted,omitempty"`
}

type jVerify struct {
	Recording string   `json:"recording"`
	Server    string   `json:"server"`
	Target    string   `json:"target"`
	Protocol  string   `json:"protocol"`
	Ignore    []string `json:"ignore"`
	Same      int      `json:"same"`
	Different int      `json:"different"`
	Skipped   int      `json:"skipped"`
	Requests  []struct {
		Line    int       `json:"line"`
		Method  string    `json:"method"`
		Name    string    `json:"name"`
		Status  string    `json:"status"`
		Note    string    `json:"note"`
		Changes []jChange `json:"changes"`
		Values  []struct {
			Path     string `json:"path"`
			Change   string `json:"change"`
			Recorded any    `json:"recorded,omitempty"`
			Live     any    `json:"live,omitempty"`
		} `json:"values"`
		ValueCount int `json:"valueCount"`
	} `json:"requests"`
}

type jEvent struct {
	Event   string `json:"event"`
	Method  string `json:"method,omitempty"`
	Params  any    `json:"params,omitempty"`
	Outcome string `json:"outcome,omitempty"`
	Server  string `json:"server,omitempty"`
	URL     string `json:"url,omitempty"`
	URLFull string `json:"urlComplete,omitempty"`
	Code    string `json:"userCode,omitempty"`
	Expires string `json:"expires,omitempty"`
	Result  any    `json:"result,omitempty"`
	TraceID string `json:"traceId,omitempty"`
}

type jCompletion struct {
	Shell  string `json:"shell"`
	Script string `json:"script"`
}

type jMan struct {
	Roff string `json:"roff"`
}

type jHelp struct {
	Commands []struct {
		Name        string `json:"name"`
		Usage       string `json:"usage"`
		Short       string `json:"short"`
		Description string `json:"description"`
		Flags       []struct {
			Flag    string `json:"flag"`
			Value   string `json:"value"`
			Usage   string `json:"usage"`
			Default string `json:"default"`
		} `json:"flags"`
		Examples []string `json:"examples"`
	} `json:"commands"`
}

type jVersion struct {
	Version       string   `json:"version"`
	License       string   `json:"license"`
	BuildDate     string   `json:"buildDate"`
	Module        string   `json:"module"`
	ModuleVersion string   `json:"moduleVersion"`
	Revision      string   `json:"revision"`
	RevisionTime  string   `json:"revisionTime"`
	Modified      bool     `json:"modified"`
	Go            string   `json:"go"`
	Platform      string   `json:"platform"`
	Protocols     []string `json:"protocols"`
}

// docSections maps each heading of docs/json.md to its shape; shared
// shapes are documented once, under "### name", and not expanded where
// they are used.
var docSections = map[string]reflect.Type{
	"Every document":                       reflect.TypeFor[jHeader](),
	"A failure":                            reflect.TypeFor[jFailure](),
	"list":                                 reflect.TypeFor[jList](),
	"test":                                 reflect.TypeFor[jTest](),
	"call":                                 reflect.TypeFor[jCall](),
	"task get, task cancel, call --detach": reflect.TypeFor[jTask](),
	"skills":                               reflect.TypeFor[jSkills](),
	"skill":                                reflect.TypeFor[jSkill](),
	"skillFile":                            reflect.TypeFor[jSkillFile](),
	"read":                                 reflect.TypeFor[jRead](),
	"prompt":                               reflect.TypeFor[jPromptDoc](),
	"complete":                             reflect.TypeFor[jComplete](),
	"login":                                reflect.TypeFor[jLogin](),
	"logout":                               reflect.TypeFor[jLogout](),
	"add, add-json, rename, remove, enable, disable, approve, revoke": reflect.TypeFor[jConfig](),
	"get":                           reflect.TypeFor[jGet](),
	"search":                        reflect.TypeFor[jSearch](),
	"install, upgrade":              reflect.TypeFor[jInstall](),
	"outdated":                      reflect.TypeFor[jOutdated](),
	"sync":                          reflect.TypeFor[jSync](),
	"doctor":                        reflect.TypeFor[jDoctor](),
	"import":                        reflect.TypeFor[jImport](),
	"tool TARGET NAME":              reflect.TypeFor[jToolDoc](),
	"probe":                         reflect.TypeFor[jProbe](),
	"Events":                        reflect.TypeFor[jEvent](),
	"snapshot":                      reflect.TypeFor[jSnapshot](),
	"snapshot -o":                   reflect.TypeFor[jSnapshotOut](),
	"budget":                        reflect.TypeFor[jBudget](),
	"diff":                          reflect.TypeFor[jDiff](),
	"verify":                        reflect.TypeFor[jVerify](),
	"completion":                    reflect.TypeFor[jCompletion](),
	"man":                           reflect.TypeFor[jMan](),
	"help":                          reflect.TypeFor[jHelp](),
	"version":                       reflect.TypeFor[jVersion](),
	"connect, sessions, disconnect": reflect.TypeFor[jSessions](),
	"error":                         reflect.TypeFor[jError](),
	"implementation":                reflect.TypeFor[jImplementation](),
	"surface":                       reflect.TypeFor[jSurface](),
	"sandbox":                       reflect.TypeFor[jSandbox](),
	"icon":                          reflect.TypeFor[jIcon](),
	"capabilities":                  reflect.TypeFor[jCapabilities](),
	"tool":                          reflect.TypeFor[jTool](),
	"toolAnnotations":               reflect.TypeFor[jToolAnnotations](),
	"resource":                      reflect.TypeFor[jResource](),
	"resourceTemplate":              reflect.TypeFor[jResourceTemplate](),
	"annotations":                   reflect.TypeFor[jAnnotations](),
	"prompt (shape)":                reflect.TypeFor[jPrompt](),
	"content":                       reflect.TypeFor[jContent](),
	"resourceContents":              reflect.TypeFor[jResourceContents](),
}

// sharedShapes are the types documented once, under "### …".
var sharedShapes = map[reflect.Type]bool{
	reflect.TypeFor[jError](): true, reflect.TypeFor[jImplementation](): true, reflect.TypeFor[jIcon](): true,
	reflect.TypeFor[jCapabilities](): true, reflect.TypeFor[jTool](): true, reflect.TypeFor[jToolAnnotations](): true,
	reflect.TypeFor[jResource](): true, reflect.TypeFor[jResourceTemplate](): true, reflect.TypeFor[jAnnotations](): true,
	reflect.TypeFor[jPrompt](): true, reflect.TypeFor[jContent](): true, reflect.TypeFor[jResourceContents](): true,
	reflect.TypeFor[jSkillFile](): true, reflect.TypeFor[jSurface](): true,
	reflect.TypeFor[jSandbox](): true,
}

// jsonField is a member of a shape.
type jsonField struct {
	name     string
	optional bool
	typ      reflect.Type
}

func shapeFields(t reflect.Type) []jsonField {
	var out []jsonField
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		name, opts, _ := strings.Cut(tag, ",")
		out = append(out, jsonField{name: name, optional: strings.Contains(opts, "omitempty"), typ: f.Type})
	}
	return out
}

// shapePaths lists the documented paths of a shape: its members, and
// those of its own (not shared) objects, lists of objects as "a[].b".
func shapePaths(t reflect.Type, prefix string) []string {
	var out []string
	for _, f := range shapeFields(t) {
		p := prefix + f.name
		out = append(out, p)
		ft := f.typ
		suffix := "."
		for ft.Kind() == reflect.Pointer || ft.Kind() == reflect.Slice {
			if ft.Kind() == reflect.Slice {
				suffix = "[]."
			}
			ft = ft.Elem()
		}
		if ft.Kind() == reflect.Struct && !sharedShapes[ft] {
			out = append(out, shapePaths(ft, p+suffix)...)
		}
	}
	return out
}

// checkDoc decodes raw strictly against shape t: no duplicate members,
// no unknown ones, every member that is not optional present, lists never
// null, types as described.
func checkDoc(raw []byte, t reflect.Type) []string {
	var problems []string
	if err := noDuplicates(raw); err != nil {
		problems = append(problems, err.Error())
	}
	var v any
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		return append(problems, "not JSON: "+err.Error())
	}
	if dec.More() {
		problems = append(problems, "more than one JSON value")
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return append(problems, "not an object")
	}
	// The header, then the command's own members.
	hdr := map[string]any{}
	for _, k := range []string{"schema", "command", "ok"} {
		if x, ok := obj[k]; ok {
			hdr[k] = x
			delete(obj, k)
		}
	}
	problems = append(problems, checkValue("", hdr, reflect.TypeFor[jHeader]())...)
	if obj["error"] != nil && t != reflect.TypeFor[jFailure]() {
		t = reflect.TypeFor[jFailure]()
	}
	return append(problems, checkValue("", obj, t)...)
}

func checkValue(path string, v any, t reflect.Type) []string {
	where := path
	if where == "" {
		where = "(top)"
	}
	bad := func(want string) []string { return []string{fmt.Sprintf("%s: %T, want %s", where, v, want)} }
	if t.Kind() == reflect.Interface {
		return nil
	}
	if t.Kind() == reflect.Pointer {
		if v == nil {
			return nil
		}
		return checkValue(path, v, t.Elem())
	}
	switch t.Kind() {
	case reflect.Struct:
		obj, ok := v.(map[string]any)
		if !ok {
			return bad("an object")
		}
		var problems []string
		known := map[string]bool{}
		for _, f := range shapeFields(t) {
			known[f.name] = true
			x, present := obj[f.name]
			if !present {
				if !f.optional {
					problems = append(problems, fmt.Sprintf("%s.%s: missing", where, f.name))
				}
				continue
			}
			problems = append(problems, checkValue(strings.TrimPrefix(path+"."+f.name, "."), x, f.typ)...)
		}
		for k := range obj {
			if !known[k] {
				problems = append(problems, fmt.Sprintf("%s.%s: not described (unknown member)", where, k))
			}
		}
		return problems
	case reflect.Slice:
		list, ok := v.([]any)
		if !ok {
			return bad("a list (never null)")
		}
		var problems []string
		for _, x := range list {
			problems = append(problems, checkValue(path+"[]", x, t.Elem())...)
		}
		return problems
	case reflect.Map:
		obj, ok := v.(map[string]any)
		if !ok {
			return bad("an object")
		}
		var problems []string
		for k, x := range obj {
			problems = append(problems, checkValue(path+"."+k, x, t.Elem())...)
		}
		return problems
	case reflect.String:
		if _, ok := v.(string); !ok {
			return bad("a string")
		}
	case reflect.Bool:
		if _, ok := v.(bool); !ok {
			return bad("a boolean")
		}
	case reflect.Int, reflect.Int64:
		n, ok := v.(json.Number)
		if _, err := n.Int64(); !ok || err != nil {
			return bad("an integer")
		}
	case reflect.Float64:
		if _, ok := v.(json.Number); !ok {
			return bad("a number")
		}
	}
	return nil
}

// noDuplicates fails on an object with a member twice, at any depth.
func noDuplicates(raw []byte) error {
	dec := json.NewDecoder(bytes.NewReader(raw))
	type frame struct {
		obj  bool
		keys map[string]bool
		key  bool // the next token of an object is a key
	}
	var stack []*frame
	for {
		tok, err := dec.Token()
		if err != nil {
			return nil
		}
		var top *frame
		if len(stack) > 0 {
			top = stack[len(stack)-1]
		}
		if top != nil && top.obj && top.key {
			if k, ok := tok.(string); ok {
				if top.keys[k] {
					return fmt.Errorf("member %q twice", k)
				}
				top.keys[k] = true
				top.key = false
				continue
			}
		}
		switch tok {
		case json.Delim('{'):
			stack = append(stack, &frame{obj: true, keys: map[string]bool{}, key: true})
			continue
		case json.Delim('['):
			stack = append(stack, &frame{})
			continue
		case json.Delim('}'), json.Delim(']'):
			stack = stack[:len(stack)-1]
		}
		if len(stack) > 0 && stack[len(stack)-1].obj {
			stack[len(stack)-1].key = true
		}
	}
}

// docRunner runs the command line in-process, the demo server being the
// built binary.
type docRunner struct {
	t    *testing.T
	home string
	dir  string
	env  map[string]string
}

func (r *docRunner) run(args ...string) (code int, stdout, stderr string) {
	var out, errb bytes.Buffer
	env := Env{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb, Dir: r.dir, Home: r.home,
		Getenv: func(k string) string { return r.env[k] }, Executable: BuiltBinary(r.t)}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	code = Main(ctx, args, env)
	return code, out.String(), errb.String()
}

// TestJSONDocuments runs every command with --json against the demo
// server (and the OAuth fixture for login and logout) and decodes each
// document strictly against its shape.
func TestJSONDocuments(t *testing.T) {
	proctest.Check(t)
	f := fakeauth.New(t)
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("MCPWIRE_TEST_BROWSER", "1")
	work := t.TempDir()
	r := &docRunner{t: t, home: filepath.Join(work, "home"), dir: work, env: map[string]string{"BROWSER": exe, "NO_COLOR": "1"}}
	demo := BuiltBinary(t)
	snap := filepath.Join(work, "demo.snapshot.json")
	rec := filepath.Join(work, "rec.jsonl")
	// A recording whose echo answered otherwise than the demo does.
	changedRec := filepath.Join(work, "changed.jsonl")
	if err := os.WriteFile(changedRec, []byte(`{"t":0,"recording":1}
{"t":1,"server":"demo","dir":"send","msg":{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}}
{"t":2,"server":"demo","dir":"recv","msg":{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"mcpwire-demo","version":"0.1.0"}}}}
{"t":3,"server":"demo","session":{"transport":"stdio","era":"legacy","protocol":"2025-06-18"}}
{"t":4,"server":"demo","dir":"send","msg":{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"}}}}
{"t":5,"server":"demo","dir":"recv","msg":{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"goodbye"}]}}}
`), 0o600); err != nil {
		t.Fatal(err)
	}
	cursor := filepath.Join(work, "cursor.json")
	if err := os.WriteFile(cursor, []byte(`{"mcpServers": {"memory": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-memory"]}, "bad": {}}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	type run struct {
		args  []string
		code  int
		shape reflect.Type
	}
	regDemo := demoserver.NewHTTPHandler(demoserver.Options{})
	regMCP := httptest.NewServer(regDemo)
	defer regDemo.Close()
	defer regMCP.Close()
	reg := newFakeRegistry(t, regMCP.URL+"/mcp")
	runs := []run{
		{[]string{"add", "d1", "--json", "--", demo, "serve-demo"}, 0, reflect.TypeFor[jConfig]()},
		{[]string{"add-json", "d2", `{"command": "` + demo + `", "args": ["serve-demo"]}`, "--json"}, 0, reflect.TypeFor[jConfig]()},
		{[]string{"add", "broken", "--json", "--", "no-such-command-mcpwire"}, 0, reflect.TypeFor[jConfig]()},
		{[]string{"add", "oauth", "--url", f.URL + "/mcp", "--json"}, 0, reflect.TypeFor[jConfig]()},
		{[]string{"list", "--json"}, 0, reflect.TypeFor[jList]()},
		{[]string{"list", "--strict", "--json"}, ExitServer, reflect.TypeFor[jList]()},
		{[]string{"list", "--no-connect", "--json"}, 0, reflect.TypeFor[jList]()},
		{[]string{"list", "--cached", "--json"}, 0, reflect.TypeFor[jList]()},
		{[]string{"list", "--offline", "--json"}, 0, reflect.TypeFor[jList]()},
		{[]string{"get", "d1", "--json"}, 0, reflect.TypeFor[jGet]()},
		{[]string{"disable", "broken", "--json"}, 0, reflect.TypeFor[jConfig]()},
		{[]string{"enable", "broken", "--json"}, 0, reflect.TypeFor[jConfig]()},
		{[]string{"revoke", "d2", "--json"}, 0, reflect.TypeFor[jConfig]()},
		{[]string{"approve", "d2", "--json"}, 0, reflect.TypeFor[jConfig]()},
		{[]string{"add", "d3", "--json", "--", demo, "serve-demo"}, 0, reflect.TypeFor[jConfig]()},
		{[]string{"rename", "d3", "d4", "--json"}, 0, reflect.TypeFor[jConfig]()},
		{[]string{"tool", "--demo", "echo", "--json"}, 0, reflect.TypeFor[jToolDoc]()},
		{[]string{"approve", "--all", "--json"}, 0, reflect.TypeFor[jConfig]()},
		{[]string{"test", "--demo", "--json"}, 0, reflect.TypeFor[jTest]()},
		{[]string{"test", "d1", "--json"}, 0, reflect.TypeFor[jTest]()},
		{[]string{"test", "--demo=http", "--json"}, 0, reflect.TypeFor[jTest]()},
		{[]string{"test", "--json", "--", demo, "serve-demo", "--apps"}, 0, reflect.TypeFor[jTest]()},
		{[]string{"snapshot", "--json", "--", demo, "serve-demo", "--apps"}, 0, reflect.TypeFor[jSnapshot]()},
		{[]string{"call", "--demo", "echo", "text=hi", "--json"}, 0, reflect.TypeFor[jCall]()},
		{[]string{"call", "--demo", "add", "a=1", "b=2", "--json"}, 0, reflect.TypeFor[jCall]()},
		{[]string{"call", "--demo", "image", "--json"}, 0, reflect.TypeFor[jCall]()},
		{[]string{"call", "--demo", "fail", "--json"}, ExitToolErr, reflect.TypeFor[jCall]()},
		{[]string{"skills", "--json", "--", demo, "serve-demo", "--skills=on"}, 0, reflect.TypeFor[jSkills]()},
		{[]string{"skill", "greeting", "--json", "--out", filepath.Join(work, "skills"), "--", demo, "serve-demo", "--skills=on"}, 0, reflect.TypeFor[jSkill]()},
		{[]string{"skill", "greeting", "--json", "--", demo, "serve-demo", "--skills=tampered"}, ExitServer, reflect.TypeFor[jFailure]()},
		{[]string{"read", "--demo", "demo://readme", "--json"}, 0, reflect.TypeFor[jRead]()},
		{[]string{"read", "--demo", "demo://logo.png", "--json"}, 0, reflect.TypeFor[jRead]()},
		{[]string{"prompt", "--demo", "greet", "name=Ada", "--json"}, 0, reflect.TypeFor[jPromptDoc]()},
		{[]string{"complete", "--demo", "--prompt", "greet", "style", "f", "--json"}, 0, reflect.TypeFor[jComplete]()},
		{[]string{"login", "oauth", "--json"}, 0, reflect.TypeFor[jLogin]()},
		{[]string{"login", "oauth", "--json"}, 0, reflect.TypeFor[jLogin]()},
		{[]string{"logout", "oauth", "--json"}, 0, reflect.TypeFor[jLogout]()},
		{[]string{"logout", "oauth", "--json"}, 0, reflect.TypeFor[jLogout]()},
		{[]string{"doctor", "--demo", "--json"}, 0, reflect.TypeFor[jDoctor]()},
		{[]string{"probe", "--demo", "--json"}, 0, reflect.TypeFor[jProbe]()},
		{[]string{"probe", "--json", "--", demo, "serve-demo", "--era", "legacy"}, 0, reflect.TypeFor[jProbe]()},
		{[]string{"doctor", "--json"}, ExitServer, reflect.TypeFor[jDoctor]()},
		{[]string{"import", "--from", "cursor", cursor, "--json"}, 0, reflect.TypeFor[jImport]()},
		{[]string{"snapshot", "--demo", "--json"}, 0, reflect.TypeFor[jSnapshot]()},
		{[]string{"budget", "--demo", "--json"}, 0, reflect.TypeFor[jBudget]()},
		{[]string{"budget", "--demo", "--json", "--max-tokens", "300"}, 0, reflect.TypeFor[jBudget]()},
		{[]string{"budget", "d1", "--json", "--max-tokens", "600", "--", demo, "serve-demo", "--next-release"}, 0, reflect.TypeFor[jBudget]()},
		{[]string{"snapshot", "--demo", "-o", snap, "--json"}, 0, reflect.TypeFor[jSnapshotOut]()},
		{[]string{"diff", snap, "--json", "--", demo, "serve-demo", "--next-release"}, 0, reflect.TypeFor[jDiff]()},
		{[]string{"diff", snap, snap, "--fail-on", "any", "--json"}, 0, reflect.TypeFor[jDiff]()},
		{[]string{"call", "--demo", "--record", rec, "echo", "text=hi", "--json"}, 0, reflect.TypeFor[jCall]()},
		{[]string{"verify", rec, "--json", "--", demo, "serve-demo"}, 0, reflect.TypeFor[jVerify]()},
		{[]string{"verify", rec, "--json", "--ignore", "_meta", "--", demo, "serve-demo", "--next-release"}, ExitServer, reflect.TypeFor[jVerify]()},
		{[]string{"verify", changedRec, "--json", "--demo"}, ExitServer, reflect.TypeFor[jVerify]()},
		{[]string{"completion", "zsh", "--json"}, 0, reflect.TypeFor[jCompletion]()},
		{[]string{"man", "--json"}, 0, reflect.TypeFor[jMan]()},
		{[]string{"help", "--json"}, 0, reflect.TypeFor[jHelp]()},
		{[]string{"help", "diff", "--json"}, 0, reflect.TypeFor[jHelp]()},
		{[]string{"version", "--json"}, 0, reflect.TypeFor[jVersion]()},
		{[]string{"sessions", "--json"}, 0, reflect.TypeFor[jSessions]()},
		{[]string{"connect", "d1", "--json"}, 0, reflect.TypeFor[jSessions]()},
		{[]string{"connect", "d1", "--json"}, 0, reflect.TypeFor[jSessions]()},
		{[]string{"call", "d1", "echo", "text=through the session", "--json"}, 0, reflect.TypeFor[jCall]()},
		{[]string{"sessions", "--json"}, 0, reflect.TypeFor[jSessions]()},
		{[]string{"disconnect", "d1", "--json"}, 0, reflect.TypeFor[jSessions]()},
		{[]string{"disconnect", "--all", "--json"}, 0, reflect.TypeFor[jSessions]()},
		{[]string{"disconnect", "d1", "--json"}, ExitUsage, reflect.TypeFor[jFailure]()},
		{[]string{"remove", "d2", "--json"}, 0, reflect.TypeFor[jConfig]()},
		{[]string{"search", "demo", "--registry", reg.URL, "--json"}, 0, reflect.TypeFor[jSearch]()},
		{[]string{"install", "io.test/demo@1.0.0", "--registry", reg.URL, "-s", "project", "--yes", "--json"}, 0, reflect.TypeFor[jInstall]()},
		{[]string{"outdated", "--json"}, 0, reflect.TypeFor[jOutdated]()},
		{[]string{"sync", "--frozen", "--json"}, 0, reflect.TypeFor[jSync]()},
		{[]string{"upgrade", "demo", "--yes", "--json"}, 0, reflect.TypeFor[jInstall]()},
		{[]string{"sync", "--frozen", "--json"}, 0, reflect.TypeFor[jSync]()},
		{[]string{"install", "io.test/nosuch", "--registry", reg.URL, "--json"}, ExitConfig, reflect.TypeFor[jFailure]()},
		// Failures: one document with "error".
		{[]string{"test", "--demo", "--bogus", "--json"}, ExitUsage, reflect.TypeFor[jFailure]()},
		{[]string{"tset", "--json"}, ExitUsage, reflect.TypeFor[jFailure]()},
		{[]string{"serve", "no-such-server", "--json"}, ExitUsage, reflect.TypeFor[jFailure]()},
		{[]string{"replay", "no-such-recording.jsonl", "--json"}, ExitUsage, reflect.TypeFor[jFailure]()},
		{[]string{"proxy", "--listen", "0.0.0.0:0", "--json", "--", demo, "serve-demo"}, ExitUsage, reflect.TypeFor[jFailure]()},
		{[]string{"call", "--demo", "nosuch", "--json"}, ExitUsage, reflect.TypeFor[jFailure]()},
		{[]string{"test", "--json", "--", "no-such-command-mcpwire"}, ExitServer, reflect.TypeFor[jFailure]()},
		{[]string{"get", "nosuch", "--json"}, ExitConfig, reflect.TypeFor[jFailure]()},
		{[]string{"test", "oauth", "--json"}, ExitAuth, reflect.TypeFor[jFailure]()},
		{[]string{"diff", snap, "--fail-on", "breaking", "--json", "--", demo, "serve-demo", "--next-release"}, ExitServer, reflect.TypeFor[jDiff]()},
	}
	commands := map[string]bool{}
	for _, rn := range runs {
		code, stdout, stderr := r.run(rn.args...)
		name := strings.Join(rn.args, " ")
		if code != rn.code {
			t.Errorf("%s: exit %d, want %d\n%s\n%s", name, code, rn.code, stdout, stderr)
			continue
		}
		if problems := checkDoc([]byte(stdout), rn.shape); len(problems) > 0 {
			t.Errorf("%s:\n  %s\n%s", name, strings.Join(problems, "\n  "), stdout)
		}
		var h jHeader
		if json.Unmarshal([]byte(stdout), &h) == nil {
			commands[h.Command] = true
			if h.OK != (code == 0) {
				t.Errorf("%s: ok %v with exit %d", name, h.OK, code)
			}
		}
	}
	// --events: the result is the --json document of the command.
	code, stdout, _ := r.run("call", "--demo", "notify", "--events", "--log-level", "debug", "--traceparent", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01")
	if !strings.Contains(stdout, `"traceId":"4bf92f3577b34da6a3ce929d0e0e4736"`) {
		t.Errorf("call --events --traceparent: no traceId\n%s", stdout)
	}
	lines := strings.Split(strings.TrimSpace(stdout), "\n")
	for _, l := range lines {
		if p := checkEvent(l); len(p) > 0 {
			t.Errorf("call --events line %s:\n  %s", l, strings.Join(p, "\n  "))
		}
	}
	var last struct {
		Event  string          `json:"event"`
		Result json.RawMessage `json:"result"`
	}
	if code != 0 || json.Unmarshal([]byte(lines[len(lines)-1]), &last) != nil || last.Event != "result" {
		t.Fatalf("call --events: exit %d\n%s", code, stdout)
	}
	if problems := checkDoc(last.Result, reflect.TypeFor[jCall]()); len(problems) > 0 {
		t.Errorf("call --events result:\n  %s\n%s", strings.Join(problems, "\n  "), last.Result)
	}
	// Tasks: a server that outlives the processes (HTTP), with the
	// demo's tasks.
	th := demoserver.NewHTTPHandler(demoserver.Options{Tasks: true})
	tasks := httptest.NewServer(th)
	defer th.Close()
	defer tasks.Close()
	url := tasks.URL + "/mcp"
	taskID := func(args ...string) string {
		code, stdout, stderr := r.run(args...)
		var doc jTask
		if code != 0 || json.Unmarshal([]byte(stdout), &doc) != nil || doc.TaskID == "" {
			t.Fatalf("%s: exit %d\n%s\n%s", strings.Join(args, " "), code, stdout, stderr)
		}
		if problems := checkDoc([]byte(stdout), reflect.TypeFor[jTask]()); len(problems) > 0 {
			t.Errorf("%s:\n  %s\n%s", strings.Join(args, " "), strings.Join(problems, "\n  "), stdout)
		}
		return doc.TaskID
	}
	long := taskID("call", url, "slow-task", "ms=60000", "--detach", "--json")
	short := taskID("call", url, "slow-task", "ms=100", "poll=20", "--detach", "--json")
	for _, rn := range []run{
		{[]string{"task", "get", url, long, "--json"}, 0, reflect.TypeFor[jTask]()},
		{[]string{"task", "cancel", url, long, "--json"}, 0, reflect.TypeFor[jTask]()},
		{[]string{"task", "wait", url, short, "--json"}, 0, reflect.TypeFor[jCall]()},
		{[]string{"call", url, "slow-task", "ms=50", "poll=20", "--task", "--json"}, 0, reflect.TypeFor[jCall]()},
		{[]string{"task", "get", url, "no-such-task", "--json"}, ExitServer, reflect.TypeFor[jFailure]()},
	} {
		code, stdout, stderr := r.run(rn.args...)
		name := strings.Join(rn.args, " ")
		if code != rn.code {
			t.Errorf("%s: exit %d, want %d\n%s\n%s", name, code, rn.code, stdout, stderr)
			continue
		}
		if problems := checkDoc([]byte(stdout), rn.shape); len(problems) > 0 {
			t.Errorf("%s:\n  %s\n%s", name, strings.Join(problems, "\n  "), stdout)
		}
		commands["task"] = true
	}
	// Every visible command printed a document.
	for _, c := range visibleCommands() {
		if !commands[c.name] {
			t.Errorf("no --json document of %s was checked", c.name)
		}
	}
}

// checkEvent checks one NDJSON line of --events against jEvent.
func checkEvent(line string) []string {
	var v any
	dec := json.NewDecoder(strings.NewReader(line))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		return []string{err.Error()}
	}
	problems := checkValue("", v, reflect.TypeFor[jEvent]())
	if err := noDuplicates([]byte(line)); err != nil {
		problems = append(problems, err.Error())
	}
	if strings.Contains(strings.TrimSpace(line), "\n") {
		problems = append(problems, "more than one line")
	}
	return problems
}

// TestJSONDocsMatchShapes: docs/json.md documents exactly the members of
// the shapes, section by section.
func TestJSONDocsMatchShapes(t *testing.T) {
	f, err := os.Open(filepath.Join("..", "docs", "json.md"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	documented := map[string][]string{}
	section := ""
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "## "), strings.HasPrefix(line, "### "):
			section = strings.TrimSpace(strings.TrimLeft(line, "#"))
			if section == "prompt" && strings.HasPrefix(line, "### ") {
				section = "prompt (shape)"
			}
		case strings.HasPrefix(line, "| `"):
			cell := strings.TrimPrefix(line, "| `")
			path, _, _ := strings.Cut(cell, "`")
			documented[section] = append(documented[section], path)
		}
	}
	for name, t0 := range docSections {
		want := shapePaths(t0, "")
		got := documented[name]
		sort.Strings(want)
		sort.Strings(got)
		if !slices.Equal(got, want) {
			var missing, extra []string
			for _, p := range want {
				if !slices.Contains(got, p) {
					missing = append(missing, p)
				}
			}
			for _, p := range got {
				if !slices.Contains(want, p) {
					extra = append(extra, p)
				}
			}
			t.Errorf("docs/json.md, section %q: not documented %q; documented but not in the shape %q", name, missing, extra)
		}
	}
	for name := range documented {
		if _, ok := docSections[name]; !ok {
			t.Errorf("docs/json.md, section %q has a table no shape describes", name)
		}
	}
}

// TestNoDuplicates checks the duplicate finder itself.
func TestNoDuplicates(t *testing.T) {
	if noDuplicates([]byte(`{"schema":1,"a":{"schema":1,"b":[{"x":1},{"x":2}]},"schema":1}`)) == nil {
		t.Fatal("a repeated top-level member was not found")
	}
	if err := noDuplicates([]byte(`{"a":{"b":1},"b":{"a":1},"c":[{"a":1},{"a":2}]}`)); err != nil {
		t.Fatal(err)
	}
}

// TestErrorCodesDocumented: docs/json.md's table of error codes lists
// exactly the codes errorCode gives, in order.
func TestErrorCodesDocumented(t *testing.T) {
	data, err := os.ReadFile("../docs/json.md")
	if err != nil {
		t.Fatal(err)
	}
	_, sec, ok := strings.Cut(string(data), "### Error codes\n")
	if !ok {
		t.Fatal("docs/json.md has no Error codes section")
	}
	sec, _, _ = strings.Cut(sec, "\n### ")
	var doc []string
	for _, line := range strings.Split(sec, "\n") {
		if code, ok := strings.CutPrefix(line, "- `"); ok {
			code, _, _ = strings.Cut(code, "`")
			doc = append(doc, code)
		}
	}
	if !slices.Equal(doc, errorCodes) {
		t.Errorf("docs/json.md error codes:\n  %q\nthe code's:\n  %q", doc, errorCodes)
	}
}

// durationNames are the members ending in Ms that are not how long
// something took: MCP's own task members and the list cache's age.
var durationNames = map[string]bool{"timingMs": true, "ttlMs": true, "pollIntervalMs": true, "ageMs": true}

// TestOneDurationName: every document says how long something took as
// timingMs (issue 27, item 12); a new durationMs or elapsedMs fails here.
func TestOneDurationName(t *testing.T) {
	seen := map[reflect.Type]bool{}
	var walk func(where string, typ reflect.Type)
	walk = func(where string, typ reflect.Type) {
		for typ.Kind() == reflect.Pointer || typ.Kind() == reflect.Slice || typ.Kind() == reflect.Map {
			typ = typ.Elem()
		}
		if typ.Kind() != reflect.Struct || seen[typ] {
			return
		}
		seen[typ] = true
		for i := 0; i < typ.NumField(); i++ {
			f := typ.Field(i)
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			if strings.HasSuffix(name, "Ms") && !durationNames[name] {
				t.Errorf("%s: member %s: durations are timingMs, an object of milliseconds", where, name)
			}
			walk(where, f.Type)
		}
	}
	for name, typ := range docSections {
		walk(name, typ)
	}
}
