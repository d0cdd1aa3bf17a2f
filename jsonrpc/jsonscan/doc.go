// Package jsonscan is the JSON toolkit under jsonrpc: reading JSON at
// memory speed, once.
//
// [Valid] says what json.Valid says, a word at a time over long strings.
// A [Scanner] checks a message in one pass and, from [IndexMin] bytes up,
// notes where its large values start and end ([Index]); [Scanner.Object]
// hands the caller each member of an object as it is checked (jsonrpc
// takes its envelope apart that way). A [Cursor] takes checked JSON apart
// in one pass: the caller reads the values it wants where they stand and
// the cursor skips the others, through the index when it has one
// ([NewIndexedCursor]), so a long text or a large list is never scanned
// twice. [Unquote] decodes a string token as encoding/json does.
// [LineReader] reads newline-delimited messages of any length, reading a
// long line straight into one slice sized from the last long one.
// [Members] walks the members of input that may not be JSON at all, as
// far as they go (to find the id of a broken answer).
//
// It knows nothing of JSON-RPC and imports nothing of mcpwire.
package jsonscan
