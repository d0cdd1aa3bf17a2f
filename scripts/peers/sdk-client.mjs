// A host that is not mcpwire: the TypeScript SDK's client (legacy era),
// for the tests of mcpwire proxy. Run it with Node 22 from anywhere:
//
//   node scripts/peers/sdk-client.mjs --stdio COMMAND ARGS…
//   node scripts/peers/sdk-client.mjs --http URL
//   node scripts/peers/sdk-client.mjs --prefix mcp__demo__ --stdio …
//
// It lists the tools, calls echo {text: "from the TypeScript SDK"} and
// add {a: 2, b: 3} (the latter with a progress token), and ask (each
// name after --prefix, for mcpwire serve's names), answers an
// elicitation with {name: "Ada"}, and prints one JSON object on stdout:
// {tools: [names], echo: text, sum: structured sum, asked: text}.
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const sdk = path.join(here, '..', '..', '.deps', 'node_modules', '@modelcontextprotocol', 'sdk', 'dist', 'esm');
const { Client } = await import(path.join(sdk, 'client', 'index.js'));
const { ElicitRequestSchema } = await import(path.join(sdk, 'types.js'));

let argv = process.argv.slice(2);
let prefix = '';
if (argv[0] === '--prefix') {
  prefix = argv[1];
  argv = argv.slice(2);
}
const [mode, ...rest] = argv;
let transport;
if (mode === '--stdio') {
  const { StdioClientTransport } = await import(path.join(sdk, 'client', 'stdio.js'));
  transport = new StdioClientTransport({ command: rest[0], args: rest.slice(1), stderr: 'inherit' });
} else if (mode === '--http') {
  const { StreamableHTTPClientTransport } = await import(path.join(sdk, 'client', 'streamableHttp.js'));
  transport = new StreamableHTTPClientTransport(new URL(rest[0]));
} else {
  console.error('usage: sdk-client.mjs --stdio COMMAND ARGS… | --http URL');
  process.exit(2);
}
const client = new Client({ name: 'sdk-client', version: '1.0.0' }, { capabilities: { elicitation: {} } });
client.setRequestHandler(ElicitRequestSchema, async () => ({ action: 'accept', content: { name: 'Ada' } }));
await client.connect(transport);
const { tools } = await client.listTools();
const echo = await client.callTool({ name: prefix + 'echo', arguments: { text: 'from the TypeScript SDK' } });
const add = await client.callTool({ name: prefix + 'add', arguments: { a: 2, b: 3 } });
const ask = await client.callTool({ name: prefix + 'ask', arguments: {} });
console.log(JSON.stringify({
  tools: tools.map((t) => t.name),
  echo: echo.content[0].text,
  sum: add.structuredContent?.sum,
  asked: ask.content[0].text,
}));
await client.close();
