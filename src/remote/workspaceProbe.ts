// The box as a workspace, read over SSH (issue 44 deliver 2 and 3): glibc (getconf / ldd), conda
// on PATH for a non-login shell (what VS Code's Remote-SSH server and `ssh host cmd` get) beside
// the login shell's, AutoDL's /etc/network_turbo, and which download endpoints answer from the box
// (curl, else python3's urllib; every try bounded by a short timeout, all at once). Box text is
// read through strict patterns; the advice is core/workspace.ts's.
import { ENDPOINTS, TURBO_FILE, glibcVerdict, networkAdvice, parseGlibcVersion, type EndpointId, type EndpointReach, type GlibcVerdict, type NetworkAdvice } from '../core/workspace';
import type { RemoteConnection } from './connection';
import { shQuote } from './shell';

export interface WorkspaceProbe {
  glibc: string | null;
  glibcVerdict: GlibcVerdict;
  /** `command -v conda` in a non-login shell; null when conda is not on that PATH. */
  condaNonLogin: string | null;
  /** The same in a login shell (AutoDL's conda is only there). */
  condaLogin: string | null;
  turbo: boolean;
  /** Undefined when the network part was not asked for. */
  reach?: EndpointReach[];
  advice?: NetworkAdvice;
}

const PATH_LINE = /^\/[^\0\n]{0,500}$/;

function field(text: string, key: string): string {
  return new RegExp(`^${key}\\t(.*)$`, 'm').exec(text)?.[1]?.trim() ?? '';
}

const TRY_PY = [
  'import sys, time, urllib.request, urllib.error',
  't = time.time()',
  'try:',
  '    c = urllib.request.urlopen(urllib.request.Request(sys.argv[1], method="HEAD"), timeout=float(sys.argv[2])).status',
  'except urllib.error.HTTPError as e:',
  '    c = e.code',
  'except Exception:',
  '    c = 0',
  'print("%d %.3f" % (c, time.time() - t))',
].join('\n');

/** The shell script that tries each endpoint at once and prints `ID\tSTATUS SECONDS` per line. */
export function reachScript(endpoints: Readonly<Record<EndpointId, string>>, timeoutS: number): string {
  const t = String(timeoutS);
  const lines = [
    `try_one() { if command -v curl >/dev/null 2>&1; then r=$(timeout ${timeoutS + 2} curl -s -o /dev/null -m ${t} -w '%{http_code} %{time_total}' "$2" 2>/dev/null); else r=$(timeout ${timeoutS + 2} python3 -c ${shQuote(TRY_PY)} "$2" ${t} 2>/dev/null); fi; printf '%s\\t%s\\n' "$1" "$r"; }`,
    ...Object.entries(endpoints).map(([id, url]) => `try_one ${id} ${shQuote(url)} &`),
    'wait',
  ];
  return lines.join('\n');
}

export function parseReach(text: string, endpoints: Readonly<Record<EndpointId, string>>): EndpointReach[] {
  return (Object.keys(endpoints) as EndpointId[]).map((id) => {
    const m = new RegExp(`^${id}\\t(\\d{1,3}) (\\d{1,4}(?:\\.\\d{1,6})?)\\s*$`, 'm').exec(text);
    const code = m ? Number(m[1]) : 0;
    return { id, url: endpoints[id], status: code > 0 ? code : null, seconds: code > 0 && m ? Number(m[2]) : null };
  });
}

export async function probeWorkspace(conn: RemoteConnection, opts: { network?: boolean; timeoutS?: number; endpoints?: Partial<Record<string, string>>; turboFile?: string } = {}): Promise<WorkspaceProbe> {
  const plain = await conn.exec(
    [
      `printf 'getconf\\t%s\\n' "$(getconf GNU_LIBC_VERSION 2>/dev/null | head -n 1)"`,
      `printf 'ldd\\t%s\\n' "$(ldd --version 2>&1 | head -n 1)"`,
      `printf 'conda\\t%s\\n' "$(command -v conda 2>/dev/null)"`,
      `printf 'turbo\\t%s\\n' "$([ -f ${shQuote(opts.turboFile ?? TURBO_FILE)} ] && echo yes || echo no)"`,
    ].join('\n'),
    { login: false, timeoutMs: 20_000, maxOutputBytes: 16 * 1024 },
  );
  const login = await conn.exec(`printf 'conda\\t%s\\n' "$(command -v conda 2>/dev/null)"`, { timeoutMs: 30_000, maxOutputBytes: 16 * 1024 });
  const glibc = parseGlibcVersion(field(plain.stdout, 'getconf'), field(plain.stdout, 'ldd'));
  const path = (s: string) => (PATH_LINE.test(s) ? s : null);
  const turbo = field(plain.stdout, 'turbo') === 'yes';
  const out: WorkspaceProbe = { glibc, glibcVerdict: glibcVerdict(glibc), condaNonLogin: path(field(plain.stdout, 'conda')), condaLogin: path(field(login.stdout, 'conda')), turbo };
  if (opts.network === false) return out;
  // Only the known ids are replaced (tests point them at a server the box reaches).
  const endpoints: Record<EndpointId, string> = { ...ENDPOINTS };
  for (const id of Object.keys(ENDPOINTS) as EndpointId[]) if (typeof opts.endpoints?.[id] === 'string') endpoints[id] = opts.endpoints[id];
  const timeoutS = opts.timeoutS ?? 4;
  const r = await conn.exec(reachScript(endpoints, timeoutS), { login: false, timeoutMs: (timeoutS + 10) * 1000, maxOutputBytes: 16 * 1024 });
  const reach = parseReach(r.stdout, endpoints);
  return { ...out, reach, advice: networkAdvice(reach, turbo) };
}
