// `gpu-rent mcp [--budget YUAN]`: a stdio MCP server (the official @modelcontextprotocol/sdk) for a
// coding agent. Each tool runs the gpu-rent command a person would type (`quote --json`, `stock
// --json`, `jobs TARGET --json`, …) in this process through the CLI's own dispatcher, so the agent
// gets the same checks, the same code paths and the same JSON. Read tools are free. Tools that
// spend or destroy (power_on, create, clone, launch, release) first run the command's own preview (no
// --yes), then ask the user through MCP elicitation, showing the preview and the most the agent
// says it may cost; they are refused when the client cannot ask, when the user declines, and when
// the cost would pass the session budget (--budget, set by the user, never by the agent). Box and
// platform text comes back marked as untrusted data (app/mcpGate.ts).
import { AGENT_TOOLS, AgentSession, type CommandRun, type Prepared, type ToolAnswer } from '../../app/agentTools';
import { SpendBudget } from '../../app/mcpGate';
import { formatCny, yuanToFen } from '../../core/money';
import { formatHelp, parseArgs } from '../args';
import type { CliCommand, CliIO } from '../command';
import { LANG_FLAG_SPEC } from '../lang';
import { helpLang } from '../words';

const specs = {
  budget: {
    type: 'number',
    valueName: 'YUAN',
    min: 0,
    max: 100000,
    description: 'what the tools that spend may cost in all in this session, yuan (default: GPU_RENT_MCP_BUDGET, else 0: nothing that spends runs; a release costs 0 but still needs your yes)',
    zh: '本次会话中花钱的工具合计最多可花多少元（默认取 GPU_RENT_MCP_BUDGET，否则为 0：任何花钱的操作都不执行；释放不花钱，但仍需你确认）',
  },
  lang: LANG_FLAG_SPEC,
} as const;

const USAGE = 'gpu-rent mcp [--budget YUAN]';
const SUMMARY =
  'Serve gpu-rent to a coding agent over MCP on stdin/stdout. Read tools: quote, platforms, stock, instances, balance, jobs (with progress), logs, runs, compare_runs, launch_status. Tools that spend or destroy (power_on, create, clone, launch, release) run only after you confirm in the client (MCP elicitation) and within --budget; a client that cannot ask gets a refusal. Box and platform text is returned marked as untrusted data. The SSH password for jobs comes from GPU_RENT_PASSWORD, platform accounts from gpu-rent accounts.';
const SUMMARY_ZH =
  '通过 stdin/stdout 上的 MCP 把 gpu-rent 提供给编程助手。只读工具：quote、platforms、stock、instances、balance、jobs（含进度）、logs、runs、compare_runs、launch_status。花钱或销毁的工具（power_on、create、clone、launch、release）只有在你于客户端中确认（MCP elicitation）后、且在 --budget 之内才执行；不能询问用户的客户端会被拒绝。机器和平台返回的文字都标为不可信数据。jobs 的 SSH 密码来自 GPU_RENT_PASSWORD，平台账号来自 gpu-rent accounts。';

/** Runs one gpu-rent command in this process with its output captured (never on the protocol's stdout). */
async function runCommand(argv: string[], env: NodeJS.ProcessEnv): Promise<CommandRun> {
  const { main } = await import('../main');
  let stdout = '';
  let stderr = '';
  const io: CliIO = {
    stdout: (t) => void (stdout += t),
    stderr: (t) => void (stderr += t),
    readStdin: () => Promise.reject(new Error('no standard input under gpu-rent mcp')),
    // English words, so the agent reads one language; JSON is the same in every language.
    env: { ...env, LANG: 'C.UTF-8', LC_ALL: '', LC_MESSAGES: '' },
    isTTY: false,
  };
  const code = await main(argv, io);
  return { code, stdout, stderr };
}

type ToolResult = { content: { type: 'text'; text: string }[]; isError?: boolean };

const result = (a: ToolAnswer): ToolResult => ({ content: [{ type: 'text', text: a.text }], ...(a.isError ? { isError: true } : {}) });

export async function serveMcp(env: NodeJS.ProcessEnv, budget: SpendBudget): Promise<void> {
  const { McpServer } = await import('@modelcontextprotocol/sdk/server/mcp.js');
  const { StdioServerTransport } = await import('@modelcontextprotocol/sdk/server/stdio.js');
  const { version } = await import('../../../package.json');
  const server = new McpServer({ name: 'gpu-rent', version }, { capabilities: { tools: {} } });
  // The tools, their commands and the budget rule are app/agentTools.ts's, shared with VS Code's language model tools.
  const session = new AgentSession((argv) => runCommand(argv, env), budget, 'gpu-rent mcp --budget YUAN');

  /** The user's yes, through the client (MCP elicitation); a refusal text otherwise. */
  async function confirmed(p: Extract<Prepared, { kind: 'ask' }>): Promise<string | null> {
    if (!server.server.getClientCapabilities()?.elicitation)
      return `Refused: ${p.action} spends money or destroys data, and this client cannot ask the user to confirm (it does not support MCP elicitation). Ask the user to run it themselves: gpu-rent ${p.action} … --yes.`;
    const r = await server.server.elicitInput({
      mode: 'form',
      message: `An agent asks gpu-rent to ${p.action}. ${p.costFen > 0 ? `It says this may cost up to ${formatCny(p.costFen)}` : 'It costs nothing more but cannot be undone'} (session budget left: ${formatCny(p.budgetLeftFen)}).\nWhat gpu-rent will do (its preview; platform text):\n${p.preview}`,
      requestedSchema: { type: 'object', properties: { confirm: { type: 'boolean', title: `Yes, ${p.action}`, description: 'Tick to allow this one action.' } }, required: ['confirm'] },
    });
    if (r.action !== 'accept' || r.content?.confirm !== true) return `Refused: the user did not confirm ${p.action} (${r.action === 'accept' ? 'not ticked' : r.action}). Nothing was done.`;
    return null;
  }

  const read = { readOnlyHint: true, destructiveHint: false, openWorldHint: true } as const;
  const spend = { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true } as const;
  for (const t of AGENT_TOOLS) {
    const annotations = t.kind === 'read' ? { ...read, ...(t.local ? { openWorldHint: false } : {}) } : spend;
    const description = t.kind === 'read' ? t.description : t.description.replace('Needs the user to confirm', 'Needs the user to confirm in the client');
    server.registerTool(t.name, { title: t.title, description, inputSchema: t.input, annotations }, async (a: Record<string, unknown>) => {
      if (t.kind === 'read') return result(await session.read(t, a));
      const p = await session.prepare(t, a);
      if (p.kind === 'answer') return result(p.answer);
      const no = await confirmed(p);
      return no ? result({ text: no, isError: true }) : result(await session.act(t, a, p));
    });
  }

  await server.connect(new StdioServerTransport());
  // Served until the client closes stdin.
  await new Promise<void>((resolve) => {
    process.stdin.once('end', resolve);
    process.stdin.once('close', resolve);
  });
  await server.close();
}

export const command: CliCommand = {
  name: 'mcp',
  summary: 'Serve gpu-rent to a coding agent (MCP over stdio); spending needs your confirmation and a budget.',
  summaryZh: '通过 MCP（stdio）把 gpu-rent 提供给编程助手；花钱的操作需要你确认，且不超过预算。',
  help: (ctx) => formatHelp(USAGE, SUMMARY, specs, helpLang(ctx), SUMMARY_ZH),
  run: async (argv, io) => {
    const { flags } = parseArgs(argv, specs, { maxPositionals: 0 });
    const fromEnv = io.env.GPU_RENT_MCP_BUDGET !== undefined && io.env.GPU_RENT_MCP_BUDGET !== '' ? Number(io.env.GPU_RENT_MCP_BUDGET) : undefined;
    const yuan = flags.budget ?? (fromEnv !== undefined && Number.isFinite(fromEnv) && fromEnv >= 0 && fromEnv <= 100000 ? fromEnv : 0);
    await serveMcp(io.env, new SpendBudget(yuanToFen(yuan)));
    return 0;
  },
};
