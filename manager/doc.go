// Package manager is the composition root of mcpwire: from a loaded
// configuration to live sessions with many servers at once, for an agent
// that offers MCP tools to its model beside its own, and for the mcpwire
// command line. It has no terminal and no flags.
//
// # Starting
//
// [New] takes [Options]: Config (from config.Load) is required; the rest
// has safe, complete defaults, each documented on Options. Home, a
// [*Home] from [OpenHome] (the agent's own folder), defaults to
// [DefaultHome], the folder of the mcpwire command; New fails when there
// is none. Stdio servers get the environment policy applied to this
// process's environment (PATH and the like, never API keys); HTTP
// servers get the OAuth tokens of Home; approvals (in Home) are enforced
// (a definition runs only once approved; TrustAll is the explicit way
// out); no roots are offered unless Roots (or a definition's roots) say
// so.
//
// Nothing starts until tools are asked for. [Manager.Tools] returns at
// once the tools of the servers that are connected, and starts the others
// in the background, in parallel, each within its own startup budget:
// one slow or broken server never delays another, and Tools never waits.
// A server that comes up later is announced through Options.OnChange; a
// program that runs once calls [Manager.Wait] first. Tools are offered
// under qualified names, mcp__<server>__<tool> (at most 64 bytes of
// [A-Za-z0-9_-], with a stable hash suffix when a name had to change);
// [Manager.Call] reaches the server under the tool's original name.
//
// # The home folder
//
// A [Home] owns what lives in the home folder: approvals, OAuth tokens
// and pending step-ups, the era cache. [Home.Auth] and [Home.AuthFor]
// give a server's login state as an [AuthState]; [Home.Login] logs in
// (doing nothing when the saved token still works) and [Home.Logout]
// forgets the tokens; [Home.HTTPClient] sends them; [Home.Secrets] are
// the values an output must never show. [Manager.Home] is the Manager's.
//
// # States and notices
//
// [Manager.States] says where each server stands: disabled, needs
// approval, needs login, idle, connecting, connected, or failed with the
// phase and error. A server that answers 401 needs a login, not failed;
// the agent hears of it through OnLoginNeeded, runs [Home.Login] with its
// own UI (a callback that opens the URL, one that reads a pasted
// address), then [Manager.Restart]. OnNotice tells each transition once: failed,
// paused (after failures in a row a circuit breaker withdraws the
// server's tools for 15 s, doubling up to 5 min, then lets one call
// through), recovered, needs login. The callbacks run on a goroutine of
// the Manager, never under its lock: they may call back. Each server's
// wait in a queue of its own (at most 256, in order), the queues taking
// turns, so that one server's flood never delays another's; an update of
// a resource already waiting, or another change of a server's lists,
// replaces the one waiting. ServerState.Drops counts what was dropped or
// merged, and the server's requests and input requests refused for
// being too many.
//
// # Secrets
//
// The Manager masks the configured secrets (the values ${VAR} references
// took, the env and header values of the user's own file, the tokens of
// the token files its HTTP servers start with) in what it hands the
// agent: Options.Logf, the states and notices, the errors of its
// methods, progress messages, the text of tool results (Result.Raw
// stays as the server sent it), the titles and descriptions of the
// tools, resources, templates and prompts it lists, the text of a
// resource read (ReadResource, read_mcp_resource), a prompt's
// description and messages (GetPrompt) and the params of a sampling
// request handed to Options.Sample. A server that echoes the bearer
// token it was sent never gets it into the agent's log or model.
//
// # Calls
//
// Calls to one server may overlap. A call that times out (the tool
// timeout: the definition's toolTimeout, Options.ToolTimeout, or its
// timeout) or whose context ends sends notifications/cancelled and leaves
// the connection alone. A server whose session ended (a stdio server that
// died, an HTTP session that expired) is started again by the next call.
// A tool error is a [Result] with IsError, text capped at
// [DefaultMaxText] with a marker; an error is a [*ServerError] naming the
// server and the phase. [Manager.CallWith] takes per-call progress.
//
// list_changed has a list taken again in the background; a listing that
// fails keeps the previous list and is tried again after a wait.
// Resources, resource templates and prompts are listed across servers
// ([Manager.Resources], [Manager.Prompts]) and read by server, with the
// same states and breaker; Options.ResourceTools offers them to a model
// as two tools of the Manager's own. [Manager.Subscribe] asks a server to
// tell when a resource changes (Options.OnResourceUpdated hears it, in
// either era); the subscription outlives a reconnection.
// [Manager.Instructions] gives each
// server's instructions, to be put in a prompt only as marked: the
// server's words, not the user's.
//
// # Reloading and closing
//
// [Manager.Update] takes a new configuration: unchanged servers keep
// running, changed ones start again, a server whose new entry is invalid
// keeps running as it was and says why. [Manager.Close] stops every
// server in parallel (HTTP: DELETE; stdio: stdin closed, then SIGTERM and
// SIGKILL to its process group) and waits for them: no process and no
// goroutine is left behind. Descendants that left the group (setsid,
// daemons) are stopped too when Options.ReapOrphans is set: on Linux it
// makes the whole program a child subreaper, for good, which is why an
// embedding program opts in (the mcpwire command does). Options.Hurry cuts
// the stops short (a second Ctrl-C).
//
// # One server at a time
//
// Beside the Manager, a few services reach one server, for the mcpwire
// command and for tools of the same kind, each in a file of its own:
// [Dial] connects ([Spec], [DialOptions]; dial.go), [Doctor] diagnoses
// phase by phase (doctor.go), [Probe] tries each revision (probe.go); a
// login goes through [Home]. The errors an agent branches on are this
// package's own ([ServerError], [LoginRequiredError], [StepUpError], …):
// nothing of the oauth package is handed out.
package manager
