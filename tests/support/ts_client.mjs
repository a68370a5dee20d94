// The TypeScript SDK's client (@modelcontextprotocol/client) pinned to a protocol revision,
// driven by a plan read as JSON from stdin; what each step returned is printed as JSON on
// stdout. tests/support/ts_client.py installs the package and runs this script.
//
// The plan: {"transport": "http", "url": ..., "headers": {...}} or {"transport": "stdio",
// "command": ..., "args": [...], "env": {...}, "cwd": ...}; "pin": the revision;
// "steps": a list of ["discover"], ["listTools"], ["call", name, arguments], and
// ["readTask", n]: task_output (block) of the task whose id step n's text shows.
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';

const chunks = [];
for await (const chunk of process.stdin) chunks.push(chunk);
const plan = JSON.parse(Buffer.concat(chunks).toString('utf8'));

const transport =
  plan.transport === 'http'
    ? new StreamableHTTPClientTransport(new URL(plan.url), {
        requestInit: { headers: plan.headers ?? {} },
      })
    : new StdioClientTransport({
        command: plan.command,
        args: plan.args,
        env: plan.env,
        cwd: plan.cwd,
        stderr: 'inherit',
      });

const client = new Client(
  { name: 'boris-tests', version: '1.0.0' },
  { versionNegotiation: { mode: { pin: plan.pin } } },
);
await client.connect(transport);

const results = [];
for (const [step, ...args] of plan.steps) {
  if (step === 'discover') {
    results.push(await client.discover());
  } else if (step === 'listTools') {
    results.push(await client.listTools());
  } else if (step === 'call') {
    results.push(await client.callTool({ name: args[0], arguments: args[1] }));
  } else if (step === 'readTask') {
    const [, taskId] = /task_id: ([0-9a-f]+)/.exec(results[args[0]].content[0].text);
    const read = { task_id: taskId, block: true, timeout: 30000 };
    results.push(await client.callTool({ name: 'task_output', arguments: read }));
  } else {
    throw new Error(`unknown step ${step}`);
  }
}
const connection = {
  era: client.getProtocolEra(),
  version: client.getNegotiatedProtocolVersion(),
  server: client.getServerVersion(),
  instructions: client.getInstructions(),
};
await client.close();
process.stdout.write(JSON.stringify({ connection, results }));
