// Package safe holds the security rules every layer of mcpwire shares, one
// copy of each:
//
//   - terminal sanitizing ([Sanitize], [SanitizeText]): text from a server
//     or a project file cannot drive the terminal or forge a line;
//   - one escaper for each other sink, each built on the terminal's:
//     Markdown ([MarkdownText], [MarkdownCode]), HTML ([HTMLText]), XML
//     ([XMLText], [XMLAttr]), JSON ([EscapeJSON]), shell words
//     ([ShellQuote], [FishQuote]) and man pages ([Roff]);
//   - redaction ([Redactor], [Writer]): secrets are masked in every form
//     they take in output (plain, JSON-escaped, URL-escaped, base64 inside
//     "Basic"), also in a stream whose writes split a secret;
//   - URL rules ([CheckServerURL], [CheckEndpointURL], [RedactURL]);
//   - atomic writes that never follow a symbolic link at their destination
//     ([WritePrivate], [WriteAtomic], [WriteNew]);
//   - file locks across read-modify-write ([Lock]);
//   - on Windows, named pipes of the user's alone, each end checking the
//     other's user (ListenPipe, DialPipe, CheckPipePeer);
//   - the one bounded reader of files ([ReadFile]): regular files only,
//     a size limit per [Kind]; every file mcpwire reads goes through it
//     (TestOneReader in the module's root checks it).
//
// It is a leaf: it imports nothing of mcpwire, only the standard library
// and golang.org/x/sys (for file locks and pipes).
package safe
