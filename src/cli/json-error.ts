// The one error contract of every `--json` command: a JSON object on stdout,
// `{"error": {"code": "...", "message": "..."}}` (plus fields a command adds), and a non-zero
// exit. `code` is stable for scripts (usage, failed, or the specific code of the failure: an
// nvidia-smi parse error's kind, a connection's code); `message` is for people.
import { jsonForTerminal } from '../core/text';

export interface JsonErrorBody {
  code: string;
  message: string;
  [extra: string]: unknown;
}

/** `indent` 0: one line (an event in a stream of JSON lines, as `sync --watch --json` prints). */
export function jsonError(code: string, message: string, extra: Record<string, unknown> = {}, indent = 2): string {
  const error: JsonErrorBody = { ...extra, code, message };
  return jsonForTerminal({ error }, indent || undefined) + '\n';
}

/** Whether argv asks for JSON (`--json` before any bare `--`). */
export function wantsJson(argv: readonly string[]): boolean {
  const end = argv.indexOf('--');
  return (end === -1 ? argv : argv.slice(0, end)).includes('--json');
}

const CODE = /^[a-z][a-z0-9-]{0,40}$/i;

/**
 * The stable code of a thrown error: the string `code` of it or of its causes (connection and
 * platform errors carry one: auth-failed, host-key-changed, …), a platform failure's kind
 * (token-expired, unreachable, …), an app error's kind, else `failed`.
 */
export function errorCode(err: unknown): string {
  let e: unknown = err;
  for (let depth = 0; depth < 4 && typeof e === 'object' && e !== null; depth++) {
    const o = e as { code?: unknown; info?: { code?: unknown; kind?: unknown }; failure?: { kind?: unknown }; cause?: unknown };
    // A platform's failure (PlatformError): its kind in kebab case, network and timeout both `unreachable`
    // (the platform's own code, e.g. NotShutDown, is in the message).
    const kind = o.failure?.kind;
    if (typeof kind === 'string' && CODE.test(kind)) return kind === 'network' || kind === 'timeout' ? 'unreachable' : kind.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
    for (const c of [o.code, o.info?.code, o.info?.kind]) if (typeof c === 'string' && CODE.test(c)) return c;
    e = o.cause;
  }
  return 'failed';
}
