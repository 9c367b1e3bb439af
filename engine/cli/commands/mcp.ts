// `hookmap mcp --agent A`: the MCP server over stdio (engine/person/mcp/server.ts)
// that an agent starts as one of its MCP servers: ask_human and emit_event,
// carried out by the hookmap daemon serving that agent's hooks (hookmap up).
// stdout is the MCP protocol; every message of ours goes to stderr.
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { ArgError, intFlag, parseArgs } from '../args.ts';
import { createMcpServer } from '../../person/mcp/server.ts';
import { endpoint, ENDPOINT_FLAGS } from './command-common.ts';
import { hookmapVersion } from '../../core/io/version.ts';

const SPEC = { ...ENDPOINT_FLAGS, agent: { type: 'string' }, session: { type: 'string' }, timeout: { type: 'string' } } as const;

export async function run(argv: string[]): Promise<number> {
  let flags;
  try {
    flags = parseArgs(argv, SPEC).flags;
    const agent = (flags.agent as string | undefined) ?? process.env.HOOKMAP_AGENT;
    if (!agent || !/^[a-z0-9-]+$/.test(agent))
      throw new ArgError(agent ? `--agent: '${agent}' is not an agent id` : '--agent is required (or HOOKMAP_AGENT): the agent whose daemon carries the calls');
    const timeoutMs = flags.timeout === undefined ? undefined : intFlag(flags.timeout, 'timeout', 300) * 1000;
    const ep = endpoint(flags);
    const server = createMcpServer({
      url: ep.url,
      token: ep.token,
      agent,
      session: (flags.session as string | undefined) ?? (process.env.HOOKMAP_SESSION || undefined),
      timeoutMs,
      version: hookmapVersion(),
    });
    const transport = new StdioServerTransport();
    const closed = new Promise<void>((resolve) => (transport.onclose = resolve));
    process.stdin.on('end', () => void server.close());
    await server.connect(transport);
    process.stderr.write(`hookmap mcp: serving ask_human, emit_event for ${agent} via ${ep.url}\n`);
    await closed;
    return 0;
  } catch (e) {
    if (e instanceof ArgError) {
      process.stderr.write(`hookmap mcp: ${e.message}\n`);
      return 2;
    }
    throw e;
  }
}
