// Package protocol is the MCP client session over any [jsonrpc.Stream].
//
// [Connect] runs the initialize handshake, negotiating one of the versions
// [SupportedVersions] lists, and returns a [Session] whose typed methods
// cover tools, resources, prompts, completion and logging. Every method
// checks first that the server declared the capability it needs, and fails
// with a [*CapabilityError] before anything is sent when it did not.
//
// # Requests
//
// Each request is bounded by [Options.Timeout] (30 s by default) unless the
// caller's context ends sooner. When a request's context ends before its
// answer, the session sends notifications/cancelled for it and the
// connection stays usable. A server error comes back wrapped with the
// method ("tools/call: unknown tool"); errors.As still finds the
// *jsonrpc.Error. A timeout is a [*TimeoutError], which errors.Is matches
// to context.DeadlineExceeded.
//
// # Server requests and notifications
//
// ping is answered with {}; roots/list, elicitation/create and
// sampling/createMessage through the callbacks in [Options] (their
// capabilities are declared only when the callbacks are set: no roots are
// offered unless asked); anything else with -32601. Notifications reach the
// callbacks of [Options] in order, on the connection's reader goroutine:
// callbacks must return quickly and must not call the session.
package protocol
