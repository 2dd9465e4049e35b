// gpu-rent's agent tools as VS Code language model tools (issue 44 deliver 4): the same tools as
// `gpu-rent mcp`, from app/agentTools.ts, run by the gpu-rent CLI bundled with the extension
// (dist/cli.js under VS Code's own Node), so an agent gets the same commands, checks and JSON.
// Read tools run without asking. Tools that spend or destroy show their preview through
// prepareInvocation's confirmationMessages (VS Code asks the user) and fit the per-session budget
// of gpuRent.agent.budgetYuan; they are refused before any question when the budget cannot cover
// them. The tool API is VS Code 1.95's; on an older VS Code (engines say 1.85) nothing registers.
import { spawn } from 'node:child_process';
import type * as vscode from 'vscode';
import { AGENT_TOOLS, AgentSession, lmToolName, type AgentTool, type CommandRun, type Prepared, type RunCommand } from '../app/agentTools';
import { SpendBudget } from '../app/mcpGate';
import { formatCny } from '../core/money';

/** The part of VS Code 1.95's `vscode.lm` tool API used here (@types/vscode is 1.85's). */
export interface LmToolApi {
  registerTool(name: string, tool: LmTool): vscode.Disposable;
}
export interface LmTool {
  prepareInvocation(options: { input: Record<string, unknown> }, token: vscode.CancellationToken): Promise<{ invocationMessage?: string; confirmationMessages?: { title: string; message: string | vscode.MarkdownString } }>;
  invoke(options: { input: Record<string, unknown> }, token: vscode.CancellationToken): Promise<unknown>;
}
/** VS Code 1.95's result classes, from the running VS Code. */
interface LmResultApi {
  LanguageModelToolResult: new (content: unknown[]) => unknown;
  LanguageModelTextPart: new (value: string) => unknown;
}

const MAX_OUTPUT = 4 * 1024 * 1024;

/** The bundled CLI as a child of VS Code's own runtime (ELECTRON_RUN_AS_NODE makes Electron a Node). */
export function bundledCli(cliPath: string, cwd: () => string | undefined = () => undefined, execPath = process.execPath): RunCommand {
  return (argv) =>
    new Promise<CommandRun>((resolve) => {
      // In the workspace folder, as a terminal there would be: launch finds gpu-rent.yaml where the user keeps it.
      const p = spawn(execPath, [cliPath, ...argv], { cwd: cwd(), env: { ...process.env, ELECTRON_RUN_AS_NODE: '1', LANG: 'C.UTF-8', LC_ALL: '', LC_MESSAGES: '' }, stdio: ['ignore', 'pipe', 'pipe'], windowsHide: true });
      let stdout = '';
      let stderr = '';
      p.stdout.on('data', (c: Buffer) => void (stdout.length < MAX_OUTPUT && (stdout += c.toString('utf8'))));
      p.stderr.on('data', (c: Buffer) => void (stderr.length < MAX_OUTPUT && (stderr += c.toString('utf8'))));
      p.on('error', (e) => resolve({ code: 1, stdout, stderr: `${stderr}${e.message}` }));
      p.on('close', (code) => resolve({ code: code ?? 1, stdout, stderr }));
    });
}

export interface AgentToolsOptions {
  run: RunCommand;
  /** vscode.l10n and vscode.MarkdownString (passed in: this file loads no vscode at run time, so its test runs in Node). */
  l10n: { t(message: string, ...args: (string | number | boolean)[]): string };
  markdown(): vscode.MarkdownString;
  /** gpuRent.agent.budgetYuan now, fen (read at each spending call: a lowered budget applies at once). */
  budgetFen(): number;
  lm: LmToolApi;
  results: LmResultApi;
}

/** Registers every contributed tool; the disposables. */
export function registerAgentTools(o: AgentToolsOptions): vscode.Disposable[] {
  const session = new AgentSession(o.run, new SpendBudget(o.budgetFen()), 'the setting gpuRent.agent.budgetYuan');
  // The setting may change within the session: the limit follows it, what was spent stays spent.
  const syncBudget = () => {
    const limit = o.budgetFen();
    if (limit !== session.budget.limitFen) session.budget = session.budget.withLimit(limit);
  };
  const asked = new Map<string, Extract<Prepared, { kind: 'ask' }> | { kind: 'answer'; text: string; isError: boolean }>();
  const key = (t: AgentTool, input: unknown) => `${t.name}\u0000${JSON.stringify(input)}`;
  const result = (text: string) => new o.results.LanguageModelToolResult([new o.results.LanguageModelTextPart(text)]);
  return AGENT_TOOLS.map((t) =>
    o.lm.registerTool(lmToolName(t.name), {
      async prepareInvocation({ input }) {
        if (t.kind === 'read') return { invocationMessage: o.l10n.t('GPU Rent: {0}', t.title) };
        syncBudget();
        // The command's own preview (no --yes: nothing is sent) and the budget, before VS Code asks.
        const p = await session.prepare(t, input);
        if (p.kind === 'answer') {
          asked.set(key(t, input), { kind: 'answer', ...p.answer });
          return { invocationMessage: o.l10n.t('GPU Rent: {0}', t.title) };
        }
        asked.set(key(t, input), p);
        return { invocationMessage: o.l10n.t('GPU Rent: {0}', t.title), confirmationMessages: confirmation(o, p) };
      },
      async invoke({ input }) {
        if (t.kind === 'read') return result((await session.read(t, input)).text);
        syncBudget();
        const p = asked.get(key(t, input)) ?? (await session.prepare(t, input));
        asked.delete(key(t, input));
        if (p.kind === 'answer') return result('answer' in p ? p.answer.text : p.text);
        // VS Code calls invoke only after the user allowed the confirmation above.
        return result((await session.act(t, input, p)).text);
      },
    }),
  );
}

/** What VS Code shows before a spending tool runs: the action, the most it may cost, the budget left, the command's preview as data. */
function confirmation(o: AgentToolsOptions, p: Extract<Prepared, { kind: 'ask' }>): { title: string; message: vscode.MarkdownString } {
  const md = o.markdown();
  md.appendText(o.l10n.t('An agent asks GPU Rent to {0}.', p.action) + '\n\n');
  md.appendText(p.costFen > 0 ? o.l10n.t('It says this may cost up to {0} (this session’s agent budget has {1} left).', formatCny(p.costFen), formatCny(p.budgetLeftFen)) : o.l10n.t('It costs nothing more but cannot be undone.'));
  md.appendText('\n\n' + o.l10n.t('What gpu-rent will do (its preview; platform text, not instructions):') + '\n');
  md.appendCodeblock(p.preview, 'text');
  return { title: p.toolKind === 'destroy' ? o.l10n.t('GPU Rent: allow this release?') : o.l10n.t('GPU Rent: allow this spending?'), message: md };
}

/** The running VS Code's tool API, or undefined before 1.95. */
export function lmToolApi(vscodeModule: unknown): { lm: LmToolApi; results: LmResultApi } | undefined {
  const v = vscodeModule as { lm?: Partial<LmToolApi> } & Partial<LmResultApi>;
  if (typeof v.lm?.registerTool !== 'function' || typeof v.LanguageModelToolResult !== 'function' || typeof v.LanguageModelTextPart !== 'function') return undefined;
  return { lm: v.lm as LmToolApi, results: { LanguageModelToolResult: v.LanguageModelToolResult, LanguageModelTextPart: v.LanguageModelTextPart } };
}
