// A stdio MCP server built on the TypeScript SDK's experimental tasks
// (the 2025-11-25 revision: params.task on tools/call, tasks/get,
// tasks/result, tasks/cancel), for mcpwire's interop tests. Run it with
// Node 22 from the repository root: node scripts/peers/sdk-tasks-server.mjs
//
// Tools: "slow" (taskSupport optional) completes after ms milliseconds;
// "must-task" (taskSupport required) likewise; "broken" (optional) fails.
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const sdk = path.join(here, '..', '..', '.deps', 'node_modules', '@modelcontextprotocol', 'sdk', 'dist', 'esm');
const require = createRequire(import.meta.url);
const z = require(path.join(here, '..', '..', '.deps', 'node_modules', 'zod'));
const { McpServer } = await import(path.join(sdk, 'server', 'mcp.js'));
const { StdioServerTransport } = await import(path.join(sdk, 'server', 'stdio.js'));
const { InMemoryTaskStore } = await import(path.join(sdk, 'experimental', 'tasks', 'stores', 'in-memory.js'));

const taskStore = new InMemoryTaskStore();
const server = new McpServer({ name: 'sdk-tasks', version: '1.0.0' }, {
  capabilities: { tools: {}, tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } } },
  taskStore,
});

function register(name, taskSupport, finish) {
  server.experimental.tasks.registerToolTask(name, {
    description: `${name}: a task of the TypeScript SDK`,
    inputSchema: { ms: z.number().optional() },
    execution: { taskSupport },
  }, {
    createTask: async ({ ms }, extra) => {
      const task = await extra.taskStore.createTask({ ttl: 60000, pollInterval: 50 });
      setTimeout(() => finish(extra.taskStore, task.taskId, ms ?? 100).catch(() => {}), ms ?? 100);
      return { task };
    },
    getTask: async (_args, extra) => extra.taskStore.getTask(extra.taskId),
    getTaskResult: async (_args, extra) => extra.taskStore.getTaskResult(extra.taskId),
  });
}

const done = async (store, id, ms) => store.storeTaskResult(id, 'completed', { content: [{ type: 'text', text: `done after ${ms} ms` }] });
register('slow', 'optional', done);
register('must-task', 'required', done);
register('broken', 'optional', async (store, id) => store.storeTaskResult(id, 'failed', { content: [{ type: 'text', text: 'broken as asked' }], isError: true }));

await server.connect(new StdioServerTransport());
