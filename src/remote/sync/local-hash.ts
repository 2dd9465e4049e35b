// SHA-256 of what we write, computed on a worker thread: on a fast link the main thread is
// busy decrypting SSH packets, and hashing there too cost about a third of its time. Data is
// copied into 1 MiB blocks and handed over (transferred, not cloned). Where a worker cannot
// start, hashing falls back to the calling thread with the same interface.
import { createHash, type Hash } from 'node:crypto';
import { Worker } from 'node:worker_threads';

export interface Sha256 {
  update(data: Buffer): void;
  /** Digest of everything fed so far; the hash can keep going (for a resumed prefix). */
  peek(): Promise<string>;
  /** Final digest; the hash is finished. */
  digest(): Promise<string>;
  /** Drops the hash (an abandoned pull). */
  discard(): void;
}

const WORKER_SOURCE = `
const { parentPort } = require('node:worker_threads');
const { createHash } = require('node:crypto');
const hashes = new Map();
parentPort.on('message', (m) => {
  let h = hashes.get(m.id);
  if (!h && m.t !== 'x') { h = createHash('sha256'); hashes.set(m.id, h); }
  if (m.t === 'u') h.update(new Uint8Array(m.b));
  else if (m.t === 'p') parentPort.postMessage({ q: m.q, hex: h.copy().digest('hex') });
  else if (m.t === 'd') { parentPort.postMessage({ q: m.q, hex: h.digest('hex') }); hashes.delete(m.id); }
  else if (m.t === 'x') hashes.delete(m.id);
});
`;

const BLOCK = 1024 * 1024;

class InThreadSha256 implements Sha256 {
  private readonly h: Hash = createHash('sha256');
  update(data: Buffer): void {
    this.h.update(data);
  }
  peek(): Promise<string> {
    return Promise.resolve(this.h.copy().digest('hex'));
  }
  digest(): Promise<string> {
    return Promise.resolve(this.h.digest('hex'));
  }
  discard(): void {}
}

/** One worker serving every hash of a sync pass. */
export class HashWorker {
  private worker: Worker | undefined;
  private failed: Error | undefined;
  private nextId = 0;
  private nextQuery = 0;
  private readonly waiting = new Map<number, { resolve: (hex: string) => void; reject: (e: Error) => void }>();

  private ensure(): Worker | undefined {
    if (this.worker || this.failed) return this.worker;
    try {
      const w = new Worker(WORKER_SOURCE, { eval: true });
      w.unref(); // never what keeps a CLI process alive
      w.on('message', (m: { q: number; hex: string }) => {
        const p = this.waiting.get(m.q);
        this.waiting.delete(m.q);
        p?.resolve(m.hex);
      });
      const die = (e: Error) => {
        this.failed = e;
        this.worker = undefined;
        for (const p of this.waiting.values()) p.reject(new Error(`hashing thread failed: ${e.message}`));
        this.waiting.clear();
      };
      w.on('error', die);
      w.on('exit', (code) => {
        if (this.worker === w) die(new Error(`exited with code ${code}`));
      });
      this.worker = w;
    } catch (e) {
      this.failed = e instanceof Error ? e : new Error(String(e));
    }
    return this.worker;
  }

  create(): Sha256 {
    const w = this.ensure();
    if (!w) return new InThreadSha256();
    const id = this.nextId++;
    // Bytes are copied at once: callers reuse their buffers as soon as update() returns.
    let block: Buffer | undefined;
    let filled = 0;
    const flush = () => {
      if (!block || !filled) return;
      const out = filled === block.length ? block : Buffer.from(block.subarray(0, filled));
      block = undefined;
      filled = 0;
      const ab = out.buffer.byteLength === out.length ? out.buffer : out.buffer.slice(out.byteOffset, out.byteOffset + out.length);
      this.worker?.postMessage({ t: 'u', id, b: ab }, [ab as ArrayBuffer]);
    };
    const append = (data: Buffer) => {
      let off = 0;
      while (off < data.length) {
        block ??= Buffer.allocUnsafeSlow(BLOCK);
        const n = data.copy(block, filled, off);
        filled += n;
        off += n;
        if (filled === block.length) flush();
      }
    };
    const ask = (t: 'p' | 'd') => {
      flush();
      return new Promise<string>((resolve, reject) => {
        if (!this.worker) return reject(this.failed ?? new Error('hashing thread stopped'));
        const q = this.nextQuery++;
        this.waiting.set(q, { resolve, reject });
        this.worker.postMessage({ t, id, q });
      });
    };
    return {
      update: (data) => append(data),
      peek: () => ask('p'),
      digest: () => ask('d'),
      discard: () => {
        block = undefined;
        filled = 0;
        this.worker?.postMessage({ t: 'x', id });
      },
    };
  }

  close(): void {
    const w = this.worker;
    this.worker = undefined;
    this.failed ??= new Error('closed');
    for (const p of this.waiting.values()) p.reject(new Error('hashing thread closed'));
    this.waiting.clear();
    void w?.terminate();
  }
}
