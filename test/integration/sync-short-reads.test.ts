// pullRange against an SFTP server that answers reads out of order and one byte short (a
// server that serves reads concurrently may do both): the file must still arrive whole, in
// order, and without waiting for the stall timer. ssh2's own Server on loopback, real client.
import { strict as assert } from 'node:assert';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { open } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, Server, utils, type SFTPWrapper } from 'ssh2';
import { pullRange } from '../../src/remote/sync/transfer';
import { testHostKey } from '../support/host-key';

const { STATUS_CODE } = utils.sftp;

/** Serves one file; each READ one byte short where it can be, the oldest held back while newer ones are answered. */
function startServer(content: Buffer): Promise<{ port: number; reads: () => number; close: () => Promise<void> }> {
  let reads = 0;
  const server = new Server({ hostKeys: [testHostKey()] }, (conn) => {
    conn.on('error', () => undefined);
    conn.on('authentication', (ctx) => (ctx.method === 'password' && ctx.password === 'pw' ? ctx.accept() : ctx.reject(['password'])));
    conn.on('ready', () =>
      conn.on('session', (accept) =>
        accept().on('sftp', (acceptSftp) => {
          const sftp = acceptSftp();
          let pending: Array<{ id: number; offset: number; length: number }> = [];
          let scheduled = false;
          const answer = ({ id, offset, length }: { id: number; offset: number; length: number }) => {
            if (offset >= content.length) sftp.status(id, STATUS_CODE.EOF);
            else sftp.data(id, content.subarray(offset, Math.min(content.length, offset + Math.max(1, length - 1))));
          };
          // The oldest read waits while newer ones are answered (latest first); alone, it is answered after 10 ms.
          const flush = () => {
            scheduled = false;
            if (pending.length === 1) {
              const lone = pending[0]!;
              return void setTimeout(() => {
                if (pending.length === 1 && pending[0] === lone) answer(pending.pop()!);
              }, 10);
            }
            const oldest = pending.shift();
            for (const r of pending.reverse()) answer(r);
            pending = oldest ? [oldest] : [];
            if (oldest) flush();
          };
          sftp.on('OPEN', (id) => sftp.handle(id, Buffer.from('h')));
          sftp.on('READ', (id, _h, offset, length) => {
            reads++;
            pending.push({ id, offset, length });
            if (!scheduled) {
              scheduled = true;
              setImmediate(flush);
            }
          });
          sftp.on('CLOSE', (id) => sftp.status(id, STATUS_CODE.OK));
        }),
      ),
    );
  });
  return new Promise((res) =>
    server.listen(0, '127.0.0.1', () =>
      res({ port: (server.address() as AddressInfo).port, reads: () => reads, close: () => new Promise<void>((r) => server.close(() => r())) }),
    ),
  );
}

describe('sync: pullRange with reads answered out of order and short', function () {
  this.timeout(30_000);
  const content = randomBytes(6000);
  let srv: Awaited<ReturnType<typeof startServer>>;
  let client: Client;
  let sftp: SFTPWrapper;
  let dir: string;

  before(async () => {
    srv = await startServer(content);
    client = new Client();
    await new Promise<void>((res, rej) => {
      client.on('ready', () => res()).on('error', rej);
      client.connect({ host: '127.0.0.1', port: srv.port, username: 'u', password: 'pw', hostVerifier: () => true });
    });
    sftp = await new Promise<SFTPWrapper>((res, rej) => client.sftp((err, s) => (err ? rej(err) : res(s))));
    dir = mkdtempSync(join(tmpdir(), 'gpu-rent-short-reads-'));
  });
  after(async () => {
    client?.end();
    await srv?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  for (const [from, syncEvery] of [[0, 0], [1234, 0], [0, 1000]] as const) {
    it(`pulls the whole file from byte ${from}, in order, before the stall timer (4 reads of 97 bytes out${syncEvery ? `, a datasync every ${syncEvery} bytes` : ''})`, async () => {
      const handle = await new Promise<Buffer>((res, rej) => sftp.open('/f', 'r', (err, h) => (err ? rej(err) : res(h))));
      const path = join(dir, `f-${from}-${syncEvery}.part`);
      const out = await open(path, 'w');
      await out.write(content.subarray(0, from), 0, from, 0);
      const hash = createHash('sha256');
      const t0 = Date.now();
      try {
        const n = await pullRange(sftp, handle, out, { from, size: content.length, hash, inFlight: 4, chunkBytes: 97, stallMs: 3000, syncEvery });
        assert.equal(n, content.length - from);
      } finally {
        await out.close();
      }
      assert.ok(Date.now() - t0 < 3000, `took ${Date.now() - t0} ms: it waited for the stall timer`);
      assert.ok(readFileSync(path).equals(content), 'the local file is the remote file');
      assert.equal(hash.digest('hex'), createHash('sha256').update(content.subarray(from)).digest('hex'));
    });
  }
});
