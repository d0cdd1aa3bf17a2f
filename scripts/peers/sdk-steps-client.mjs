// A client built on the TypeScript SDK (@modelcontextprotocol/sdk), for
// mcpwire's interop tests: it starts a stdio server, connects, lists the
// tools, calls one tool as many times as asked, each bounded by a
// timeout, and prints one JSON line per step, as the Go SDK client of
// internal/peers/testdata/gosdkclient does: what the SDK's client saw,
// each failure classified as the SDK reports it (a JSON-RPC error, its
// request timeout, a closed connection). Run it with Node 22 from the
// repository root:
//
//   node scripts/peers/sdk-steps-client.mjs [--call NAME --args JSON --repeat N --timeout MS] -- COMMAND ARGS...
//   node scripts/peers/sdk-steps-client.mjs --url URL [--call …] --
//
// With --url it reaches a streamable HTTP endpoint instead of a command.
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const sdk = path.join(here, '..', '..', '.deps', 'node_modules', '@modelcontextprotocol', 'sdk', 'dist', 'esm');
const { Client } = await import(path.join(sdk, 'client', 'index.js'));
const { McpError, ErrorCode } = await import(path.join(sdk, 'types.js'));

const argv = process.argv.slice(2);
const opts = { call: '', args: '{}', repeat: 1, timeout: 10000, url: '' };
while (argv.length > 0 && argv[0] !== '--') {
  const flag = argv.shift().replace(/^--?/, '');
  opts[flag] = argv.shift();
}
argv.shift();
if (argv.length === 0 && !opts.url) {
  process.stderr.write('usage: sdk-steps-client.mjs [--url URL] [--call NAME --args JSON --repeat N --timeout MS] -- [COMMAND ARGS...]\n');
  process.exit(2);
}

function classify(err) {
  if (err instanceof McpError) {
    if (err.code === ErrorCode.RequestTimeout) return { kind: 'timeout', message: err.message };
    if (err.code === ErrorCode.ConnectionClosed) return { kind: 'closed', message: err.message };
    return { kind: 'jsonrpc', code: err.code, message: err.message };
  }
  const message = String(err && err.message || err);
  // A request after the transport closed: the SDK refuses it so.
  if (message === 'Not connected') return { kind: 'closed', message };
  return { kind: 'other', message };
}

function emit(line, start) {
  line.ms = Date.now() - start;
  process.stdout.write(JSON.stringify(line) + '\n');
}

let transport;
if (opts.url) {
  const { StreamableHTTPClientTransport } = await import(path.join(sdk, 'client', 'streamableHttp.js'));
  transport = new StreamableHTTPClientTransport(new URL(opts.url));
} else {
  const { StdioClientTransport } = await import(path.join(sdk, 'client', 'stdio.js'));
  transport = new StdioClientTransport({ command: argv[0], args: argv.slice(1), stderr: 'inherit' });
}
let protocol = '';
const setVersion = transport.setProtocolVersion?.bind(transport);
transport.setProtocolVersion = (v) => { protocol = v; setVersion?.(v); };
const client = new Client({ name: 'sdk-steps-client', version: '1.0.0' });
const timeout = Number(opts.timeout);
let start = Date.now();
try {
  await client.connect(transport, { timeout });
} catch (err) {
  emit({ step: 'connect', error: classify(err) }, start);
  process.exit(1);
}
emit({ step: 'connect', protocol, serverInfo: client.getServerVersion() }, start);
start = Date.now();
try {
  const res = await client.listTools({}, { timeout });
  emit({ step: 'tools', tools: res.tools }, start);
} catch (err) {
  emit({ step: 'tools', error: classify(err) }, start);
}
if (opts.call) {
  const args = JSON.parse(opts.args);
  for (let i = 0; i < Number(opts.repeat); i++) {
    start = Date.now();
    try {
      const res = await client.callTool({ name: opts.call, arguments: args }, undefined, { timeout });
      emit({ step: 'call', result: res }, start);
    } catch (err) {
      emit({ step: 'call', error: classify(err) }, start);
    }
  }
}
await client.close();
