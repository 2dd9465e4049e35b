// One connection per target per process: every command (and the extension) reuses it.
import { RemoteConnection, type ConnectOptions } from './connection';
import { knownHostsName, type SshTarget } from './target';

const pool = new Map<string, RemoteConnection>();

function keyOf(target: SshTarget, opts: ConnectOptions): string {
  const env = opts.env ?? process.env;
  return `${target.user ?? env.USER ?? ''}@${knownHostsName(target.host, target.port)}`;
}

/** The warm connection to `target`, connecting (with a brief retry) on first use. */
export async function getConnection(target: SshTarget, opts: ConnectOptions = {}): Promise<RemoteConnection> {
  const key = keyOf(target, opts);
  let conn = pool.get(key);
  if (!conn) {
    conn = new RemoteConnection(target, opts);
    pool.set(key, conn);
  }
  try {
    await conn.connect();
  } catch (e) {
    // A connection that never came up (or failed for good) is not kept.
    if (pool.get(key) === conn && !conn.connected) {
      pool.delete(key);
      conn.close();
    }
    throw e;
  }
  return conn;
}

/** Closes every pooled connection (end of a CLI command, extension deactivation). */
export function closeAll(): void {
  for (const c of pool.values()) c.close();
  pool.clear();
}

export function pooledConnections(): number {
  return pool.size;
}
