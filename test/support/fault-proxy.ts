// A TCP proxy between the client under test and sshd that can fail like real networks do
// (TESTING.md §2): pass bytes through, black-hole them while keeping sockets open (dead Wi-Fi,
// NAT timeout: only keepalive notices), reset connections, or reset after N more bytes.
import * as net from 'node:net';

export type FaultMode = 'pass' | 'blackhole' | 'reset';

export interface FaultProxy {
  port: number;
  /** 'pass' forwards; 'blackhole' holds every byte (sockets stay open); 'reset' resets live and new connections. */
  mode: FaultMode;
  /** One-shot: after n more bytes (either direction, any connection) reset the connection carrying them. null disarms. */
  cutAfterBytes(n: number | null): void;
  /** Resets every live connection now (RST, not FIN). */
  resetAll(): void;
  /** Live client connections. */
  readonly connections: number;
  /** Connections accepted so far. */
  readonly accepted: number;
  /** Bytes forwarded so far, both directions. */
  readonly bytes: number;
  close(): Promise<void>;
}

interface Pair {
  client: net.Socket;
  server: net.Socket;
  held: Array<{ to: net.Socket; data: Buffer }>;
  dead: boolean;
}

export function startFaultProxy(targetPort: number, targetHost = '127.0.0.1'): Promise<FaultProxy> {
  const pairs = new Set<Pair>();
  let mode: FaultMode = 'pass';
  let cutBudget: number | null = null;
  let accepted = 0;
  let bytes = 0;

  const kill = (p: Pair, force = false) => {
    if (p.dead && !force) return;
    p.dead = true;
    pairs.delete(p);
    for (const s of [p.client, p.server]) {
      if (s.destroyed) continue;
      try {
        s.resetAndDestroy();
      } catch {
        s.destroy();
      }
    }
  };

  const forward = (p: Pair, to: net.Socket, data: Buffer) => {
    if (p.dead) return;
    if (mode === 'blackhole') {
      p.held.push({ to, data });
      return;
    }
    if (cutBudget !== null) {
      if (data.length >= cutBudget) {
        const head = data.subarray(0, cutBudget);
        cutBudget = null;
        if (head.length) {
          bytes += head.length;
          to.write(head);
        }
        // Let the head reach the kernel before the RST.
        p.dead = true;
        setImmediate(() => kill(p, true));
        return;
      }
      cutBudget -= data.length;
    }
    bytes += data.length;
    to.write(data);
  };

  const server = net.createServer((client) => {
    accepted++;
    if (mode === 'reset') {
      client.on('error', () => undefined);
      client.resetAndDestroy();
      return;
    }
    const upstream = net.connect(targetPort, targetHost);
    const p: Pair = { client, server: upstream, held: [], dead: false };
    pairs.add(p);
    client.setNoDelay(true);
    upstream.setNoDelay(true);
    client.on('data', (d: Buffer) => forward(p, upstream, d));
    upstream.on('data', (d: Buffer) => forward(p, client, d));
    const end = () => {
      if (p.dead) return;
      p.dead = true;
      pairs.delete(p);
      client.destroy();
      upstream.destroy();
    };
    client.on('error', end);
    upstream.on('error', end);
    client.on('close', end);
    upstream.on('close', end);
  });

  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const port = (server.address() as net.AddressInfo).port;
      const proxy: FaultProxy = {
        port,
        get mode() {
          return mode;
        },
        set mode(next: FaultMode) {
          mode = next;
          if (next === 'reset') for (const p of [...pairs]) kill(p);
          if (next === 'pass') {
            for (const p of [...pairs]) {
              const held = p.held.splice(0);
              for (const h of held) forward(p, h.to, h.data);
            }
          }
        },
        cutAfterBytes(n) {
          cutBudget = n;
        },
        resetAll() {
          for (const p of [...pairs]) kill(p);
        },
        get connections() {
          return pairs.size;
        },
        get accepted() {
          return accepted;
        },
        get bytes() {
          return bytes;
        },
        close() {
          for (const p of [...pairs]) kill(p);
          return new Promise<void>((r) => server.close(() => r()));
        },
      };
      resolve(proxy);
    });
  });
}
