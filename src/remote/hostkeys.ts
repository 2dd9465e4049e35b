// Host keys pinned per `[host]:port` in an OpenSSH-format known_hosts file of our own
// (~/.config/gpu-rent/known_hosts), so a rented box's key is checked like ssh would, without
// touching the user's ~/.ssh/known_hosts.
import { createHash, createHmac } from 'node:crypto';
import { appendFileSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { protocolFailed, type Endpoint } from './errors';
import { knownHostsName } from './target';

/** `SHA256:…` exactly as `ssh-keygen -lf` prints it: base64 of the SHA-256 of the key blob, unpadded. */
export function fingerprint(keyBlob: Buffer): string {
  return 'SHA256:' + createHash('sha256').update(keyBlob).digest('base64').replace(/=+$/, '');
}

/** The key type named inside an SSH public key blob (`ssh-ed25519`, `ecdsa-sha2-nistp256`, …). */
export function keyType(keyBlob: Buffer): string {
  if (keyBlob.length < 4) return 'unknown';
  const len = keyBlob.readUInt32BE(0);
  if (len > 64 || 4 + len > keyBlob.length) return 'unknown';
  return keyBlob.subarray(4, 4 + len).toString('latin1');
}

/** gpu-rent's config folder: $GPU_RENT_HOME, else $XDG_CONFIG_HOME/gpu-rent, else ~/.config/gpu-rent. */
export function configDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.GPU_RENT_HOME) return env.GPU_RENT_HOME;
  return join(env.XDG_CONFIG_HOME || join(homedir(), '.config'), 'gpu-rent');
}

export function defaultKnownHostsPath(env: NodeJS.ProcessEnv = process.env): string {
  return join(configDir(env), 'known_hosts');
}

export interface KnownKey {
  type: string;
  blob: Buffer;
  fingerprint: string;
  /** 1-based line of the entry in the known_hosts file (so the UI can open it there). */
  line: number;
}

function hostMatches(field: string, name: string): boolean {
  // Hashed entries (|1|salt|hash), written by `ssh-keygen -H`, may be copied in from ~/.ssh.
  if (field.startsWith('|1|')) {
    const [, , salt, hash] = field.split('|');
    if (!salt || !hash) return false;
    try {
      return createHmac('sha1', Buffer.from(salt, 'base64')).update(name).digest('base64') === hash;
    } catch {
      return false;
    }
  }
  return field.split(',').some((h) => h.toLowerCase() === name);
}

export class KnownHosts {
  constructor(readonly path: string) {}

  /** Keys pinned for host:port (none on first contact). Unreadable lines are skipped. */
  lookup(host: string, port: number): KnownKey[] {
    if (!existsSync(this.path)) return [];
    const name = knownHostsName(host, port);
    const keys: KnownKey[] = [];
    const lines = readFileSync(this.path, 'utf8').split('\n');
    for (let i = 0; i < lines.length; i++) {
      const line = lines[i]!.trim();
      if (!line || line.startsWith('#') || line.startsWith('@')) continue;
      const [hosts, type, b64] = line.split(/\s+/);
      if (!hosts || !type || !b64 || !hostMatches(hosts, name)) continue;
      const blob = Buffer.from(b64, 'base64');
      if (blob.length === 0 || keyType(blob) !== type) continue;
      keys.push({ type, blob, fingerprint: fingerprint(blob), line: i + 1 });
    }
    return keys;
  }

  /** Pins a key for host:port (appends; OpenSSH's own format, so `ssh -o UserKnownHostsFile=` can read it). */
  pin(host: string, port: number, blob: Buffer): void {
    const type = keyType(blob);
    if (type === 'unknown') throw protocolFailed({ code: 'host-key-format' });
    mkdirSync(dirname(this.path), { recursive: true, mode: 0o700 });
    appendFileSync(this.path, `${knownHostsName(host, port)} ${type} ${blob.toString('base64')}\n`, { mode: 0o600 });
  }
}

/** What the verifier decided, kept for the error message after ssh2 gives up. */
export type HostKeyOutcome =
  | { kind: 'matched'; fingerprint: string; keyType: string }
  | { kind: 'accepted-new'; fingerprint: string; keyType: string }
  /** No pin for this endpoint, but the same key is pinned for an earlier endpoint of this instance: accepted and pinned here. */
  | { kind: 'same-key-new-port'; fingerprint: string; keyType: string; previous: Endpoint }
  /**
   * Refused: the key differs from the one pinned for this endpoint, or (no pin here) from
   * the one pinned for an earlier endpoint of the same instance (`previous` says which).
   */
  | { kind: 'changed'; fingerprint: string; keyType: string; pinned: string[]; pinnedKeys: Array<KnownKey & Endpoint>; previous?: Endpoint }
  | { kind: 'unknown-refused'; fingerprint: string; keyType: string };

export interface TrustQuestion {
  host: string;
  port: number;
  keyType: string;
  fingerprint: string;
}

export interface HostVerifierOptions {
  knownHosts: KnownHosts;
  host: string;
  port: number;
  /**
   * Earlier endpoints of the same instance (AutoDL gives a new port after a power cycle, with
   * the same host key). With no pin for host:port, a key pinned for one of these decides:
   * the same key is accepted and pinned here, a different one is refused.
   */
  sameMachineAs?: Endpoint[];
  /** Pin unknown keys without asking (scripts: --accept-new). */
  acceptNew?: boolean;
  /** Asks the user on first contact; resolve true to trust and pin. Absent: unknown keys are refused. */
  confirmNewKey?: (q: TrustQuestion) => Promise<boolean>;
  /** Called while the user is being asked, so the handshake deadline can pause. */
  onPrompt?: (asking: boolean) => void;
  onOutcome: (o: HostKeyOutcome) => void;
}

/** Keys pinned for the earlier endpoints (not this one), each tagged with its endpoint. */
function previousPins(opts: HostVerifierOptions): Array<KnownKey & Endpoint> {
  const seen = new Set<string>([knownHostsName(opts.host, opts.port)]);
  const out: Array<KnownKey & Endpoint> = [];
  for (const e of opts.sameMachineAs ?? []) {
    const name = knownHostsName(e.host, e.port);
    if (seen.has(name)) continue;
    seen.add(name);
    for (const k of opts.knownHosts.lookup(e.host, e.port)) out.push({ ...k, host: e.host, port: e.port });
  }
  return out;
}

/**
 * What the pins say of a key: the one pinned here (matched or changed), else one pinned for an
 * earlier endpoint of the same instance (the same key is pinned here too); undefined where no pin
 * decides.
 */
function decideByPins(opts: HostVerifierOptions, blob: Buffer, fp: string, type: string): boolean | undefined {
  const pinned = opts.knownHosts.lookup(opts.host, opts.port);
  if (pinned.length > 0) {
    if (pinned.some((k) => k.blob.equals(blob))) {
      opts.onOutcome({ kind: 'matched', fingerprint: fp, keyType: type });
      return true;
    }
    const here = pinned.map((k) => ({ ...k, host: opts.host, port: opts.port }));
    opts.onOutcome({ kind: 'changed', fingerprint: fp, keyType: type, pinned: pinned.map((k) => k.fingerprint), pinnedKeys: here });
    return false;
  }
  // No pin for this endpoint: an earlier endpoint of the same instance decides, if any.
  const earlier = previousPins(opts);
  if (earlier.length > 0) {
    const same = earlier.find((k) => k.blob.equals(blob));
    if (same) {
      opts.knownHosts.pin(opts.host, opts.port, blob);
      opts.onOutcome({ kind: 'same-key-new-port', fingerprint: fp, keyType: type, previous: { host: same.host, port: same.port } });
      return true;
    }
    const first = earlier[0]!;
    const previous = { host: first.host, port: first.port };
    const ofPrevious = earlier.filter((k) => k.host === first.host && k.port === first.port);
    opts.onOutcome({ kind: 'changed', fingerprint: fp, keyType: type, pinned: ofPrevious.map((k) => k.fingerprint), pinnedKeys: ofPrevious, previous });
    return false;
  }
  return undefined;
}

/** A key no pin knows: pinned without asking (--accept-new), refused where nobody can be asked, else the person decides. */
function firstContact(opts: HostVerifierOptions, blob: Buffer, fp: string, type: string, answer: (ok: boolean) => void): void {
  const accept = () => {
    opts.knownHosts.pin(opts.host, opts.port, blob);
    opts.onOutcome({ kind: 'accepted-new', fingerprint: fp, keyType: type });
    answer(true);
  };
  if (opts.acceptNew) {
    accept();
    return;
  }
  if (!opts.confirmNewKey) {
    opts.onOutcome({ kind: 'unknown-refused', fingerprint: fp, keyType: type });
    answer(false);
    return;
  }
  opts.onPrompt?.(true);
  opts.confirmNewKey({ host: opts.host, port: opts.port, keyType: type, fingerprint: fp }).then(
    (yes) => {
      opts.onPrompt?.(false);
      if (yes === true) {
        try {
          accept();
        } catch {
          // Could not pin (unwritable file): trust must not outlive this answer silently.
          opts.onOutcome({ kind: 'unknown-refused', fingerprint: fp, keyType: type });
          answer(false);
        }
      } else {
        opts.onOutcome({ kind: 'unknown-refused', fingerprint: fp, keyType: type });
        answer(false);
      }
    },
    () => {
      opts.onPrompt?.(false);
      opts.onOutcome({ kind: 'unknown-refused', fingerprint: fp, keyType: type });
      answer(false);
    },
  );
}

/**
 * ssh2's `hostVerifier` (callback form). ssh2 accepts any value except a strict `false`, so
 * this always calls `verify` with a real boolean, once.
 */
export function createHostVerifier(opts: HostVerifierOptions): (key: Buffer, verify: (ok: boolean) => void) => void {
  return (key, verify) => {
    let answered = false;
    const answer = (ok: boolean) => {
      if (answered) return;
      answered = true;
      verify(ok === true);
    };
    try {
      const blob = Buffer.isBuffer(key) ? key : Buffer.from(key);
      const fp = fingerprint(blob);
      const type = keyType(blob);
      const byPins = decideByPins(opts, blob, fp, type);
      if (byPins !== undefined) {
        answer(byPins);
        return;
      }
      firstContact(opts, blob, fp, type, answer);
    } catch {
      // A file we cannot read or write must not let an unverified key through.
      answer(false);
    }
  };
}

/** The pinned key types for host:port, to ask the server for the same kind of key first. */
export function pinnedKeyTypes(knownHosts: KnownHosts, host: string, port: number): string[] {
  return [...new Set(knownHosts.lookup(host, port).map((k) => k.type))];
}
