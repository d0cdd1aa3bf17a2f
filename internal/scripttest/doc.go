// Package scripttest runs command-line scripts in txtar files against real
// programs, for the end-to-end tests of the mcpwire binary
// (testdata/script/*.txtar, run by script_test.go at the repository root).
// It is stdlib-only and follows the command subset of Go's testscript, so
// scripts read the same.
//
// # Files
//
// A script file is a txtar archive: the comment section (everything before
// the first "-- name --" marker line) is the script; every file after it is
// written into the script's work directory before the script starts.
//
//	# mcpwire version names itself
//	mcpwire version
//	stdout '^mcpwire '
//	! stderr .
//
//	-- expected.json --
//	{"schema": 1}
//
// # Environment
//
// Each script runs in a fresh temporary directory, $WORK, which is also the
// initial working directory. The environment holds only: PATH (the host's),
// WORK, HOME=$WORK/home, MCPWIRE_HOME=$WORK/home/mcpwire,
// XDG_CONFIG_HOME=$WORK/home/.config, TMPDIR=$WORK/tmp, MCPWIRE (the
// binary's path), then [Params].Env. Other host variables are left out so a
// developer's own configuration and secrets never leak into a test.
//
// # Lines
//
// Blank lines and lines starting with # are ignored. A line is
//
//	[cond]... [!|?] command args... [&]
//
// Words are separated by spaces and tabs. Single quotes keep spaces and
// disable expansion; inside them a quote is written twice:
//
//	stdout 'it''s done'
//
// Outside quotes, $VAR and ${VAR} expand from the script's environment (an
// unset variable expands to nothing); in the regexp of stdout and stderr the
// value is regexp-quoted.
//
// A condition in brackets runs the line only when it holds: unix, the GOOS
// names (linux, darwin, windows, ...), ci (CI=true in the test's environment),
// exec:PROG (PROG found on the host's PATH), and the names in
// [Params].Conditions. [!cond] negates.
//
// A leading ! means the command must fail: a program must exit with a
// non-zero status (a crash by signal or a timeout still fails the script), a
// check must not hold. A leading ? accepts either outcome.
//
// # Exit codes
//
// The exact exit code of the last program run (mcpwire or exec) is checked
// with the separate command status:
//
//	! mcpwire call --demo fail
//	status 5
//
// # Commands
//
//	mcpwire ARGS...        run the binary given in [Params].Binary
//	exec PROG ARGS...      run PROG (looked up in PATH unless it holds a slash)
//	status N               the last program exited with code N
//	stdin FILE             the next program reads FILE on stdin (stdout and stderr name the last outputs)
//	stdout [-count=N] RE   the last program's stdout matches RE (multi-line mode: ^ and $ match at line ends)
//	stderr [-count=N] RE   the same for stderr
//	cmp A B                files A and B are equal (stdout and stderr name the last outputs)
//	cmpenv A B             the same, with $VAR expanded in B first
//	env K=V...             set variables for the lines that follow
//	exists PATH...         the files exist (! exists: none of them does)
//	cd DIR                 change the working directory
//	mkdir DIR...           create directories (with parents)
//	cp SRC... DST          copy files (stdout and stderr name the last outputs)
//	rm PATH...             remove files or directories
//	wait                   wait for background programs; stdout and stderr become theirs, in start order
//	skip [MSG]             skip the rest of the script (the test is reported as skipped)
//
// A program line ending in & runs in the background; wait collects it (its
// exit status is checked against its ! or ? prefix then). Every program
// starts in its own process group; when it ends, and at the end of the
// script for background programs, the whole group is killed, so no
// grandchild survives. A program that runs longer than
// [Params].CommandTimeout (default 60 s) is killed and fails the script.
//
// A failure names the file and line, and shows the log of the script so far
// with each program's stdout and stderr (long outputs cut in the middle).
package scripttest
