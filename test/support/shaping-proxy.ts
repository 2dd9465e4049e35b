// A userspace link shaper for benchmarks (bench/sync.bench.ts): a TCP proxy on 127.0.0.1 in
// front of sshd that delays each direction by half the round-trip time and caps each
// direction's rate, like a home line to a rented box (AutoDL gives ~10 Mbit/s, homes see
// 20-60 ms). Each direction is a serialising link (a chunk leaves once the previous one has
// been clocked out at the rate) followed by a fixed propagation delay, with a bounded
// bottleneck buffer: when more than `bufferBytes` wait, reading from the sender pauses, so
// TCP and SSH flow control see the link as it is instead of an endless queue.
// It can also cut every connection after N bytes towards the client (a dropped link).
import * as net from 'node:net';

export interface ShapeOptions {
  /** Round-trip time added, ms (half each way). */
  rttMs: number;
  /** Rate cap per direction, bits per second. */
  bitsPerSecond: number;
  /** Bottleneck buffer per direction; default: one bandwidth-delay product, at least 64 KiB. */
  bufferBytes?: number;
}

export interface ShapingProxy {
  port: number;
  /** Bytes delivered towards the client (downloads) and towards the server (uploads) so far. */
  readonly bytesDown: number;
  readonly bytesUp: number;
  /** One-shot: after n more bytes towards the client, reset every connection. null disarms. */
  cutDownAfter(n: number | null): void;
  close(): Promise<void>;
}

interface Direction {
  from: net.Socket;
  to: net.Socket;
  queued: number;
  linkFreeAt: number;
  paused: boolean;
  pending: Array<{ at: number; data: Buffer }>;
  timer: NodeJS.Timeout | undefined;
}

export function startShapingProxy(targetPort: number, shape: ShapeOptions): Promise<ShapingProxy> {
  const oneWay = shape.rttMs / 2;
  const bytesPerMs = shape.bitsPerSecond / 8 / 1000;
  const buffer = shape.bufferBytes ?? Math.max(64 * 1024, Math.round(bytesPerMs * shape.rttMs));
  const sockets = new Set<net.Socket>();
  let bytesDown = 0;
  let bytesUp = 0;
  let cutBudget: number | null = null;

  const resetAll = () => {
    for (const s of sockets) {
      try {
        s.resetAndDestroy();
      } catch {
        s.destroy();
      }
    }
    sockets.clear();
  };

  const deliver = (d: Direction, data: Buffer, down: boolean) => {
    d.queued -= data.length;
    if (d.paused && d.queued <= buffer / 2) {
      d.paused = false;
      d.from.resume();
    }
    if (d.to.destroyed) return;
    if (down) {
      if (cutBudget !== null) {
        if (data.length >= cutBudget) {
          const head = data.subarray(0, cutBudget);
          cutBudget = null;
          bytesDown += head.length;
          d.to.write(head);
          setImmediate(resetAll);
          return;
        }
        cutBudget -= data.length;
      }
      bytesDown += data.length;
    } else bytesUp += data.length;
    d.to.write(data);
  };

  // One queue and one timer per direction: chunks leave strictly in order (timers with
  // different delays may fire out of order, which would corrupt the stream).
  const pump = (d: Direction, down: boolean) => {
    d.timer = undefined;
    const now = performance.now();
    while (d.pending.length && d.pending[0]!.at <= now + 0.5) deliver(d, d.pending.shift()!.data, down);
    if (d.pending.length) d.timer = setTimeout(() => pump(d, down), Math.max(1, d.pending[0]!.at - now));
  };

  const send = (d: Direction, data: Buffer, down: boolean) => {
    const now = performance.now();
    const start = Math.max(now, d.linkFreeAt);
    d.linkFreeAt = start + data.length / bytesPerMs;
    d.pending.push({ at: d.linkFreeAt + oneWay, data });
    d.queued += data.length;
    if (d.queued > buffer && !d.paused) {
      d.paused = true;
      d.from.pause();
    }
    if (!d.timer) d.timer = setTimeout(() => pump(d, down), Math.max(1, d.pending[0]!.at - now));
  };

  const server = net.createServer((client) => {
    const upstream = net.connect(targetPort, '127.0.0.1');
    client.setNoDelay(true);
    upstream.setNoDelay(true);
    sockets.add(client);
    sockets.add(upstream);
    const up: Direction = { from: client, to: upstream, queued: 0, linkFreeAt: 0, paused: false, pending: [], timer: undefined };
    const down: Direction = { from: upstream, to: client, queued: 0, linkFreeAt: 0, paused: false, pending: [], timer: undefined };
    client.on('data', (d: Buffer) => send(up, d, false));
    upstream.on('data', (d: Buffer) => send(down, d, true));
    const end = () => {
      // After what is still on the link has arrived.
      setTimeout(() => {
        client.destroy();
        upstream.destroy();
        sockets.delete(client);
        sockets.delete(upstream);
      }, oneWay + Math.max(0, Math.max(up.linkFreeAt, down.linkFreeAt) - performance.now()) + 5);
    };
    for (const s of [client, upstream]) {
      s.on('error', () => undefined);
      s.on('end', end);
      s.on('close', end);
    }
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const port = (server.address() as net.AddressInfo).port;
      resolve({
        port,
        get bytesDown() {
          return bytesDown;
        },
        get bytesUp() {
          return bytesUp;
        },
        cutDownAfter(n) {
          cutBudget = n;
        },
        close: () =>
          new Promise<void>((res) => {
            resetAll();
            server.close(() => res());
          }),
      });
    });
  });
}
