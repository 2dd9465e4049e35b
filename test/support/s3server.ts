// A local S3-compatible server for the store tests: s3rver (npm) over a temp folder on loopback,
// path-style. It serves the S3 REST protocol (PUT, HEAD, GET, list, multipart, POST form
// uploads) but verifies neither signatures nor POST policies: what a grant allows is tested
// from the grant itself (test/unit/storage-grant.test.ts). Its own keys are S3RVER / S3RVER.
//
// And a stub store for the refusals s3rver cannot make: every request answered with one
// documented S3 error (status + XML body), the requests it saw recorded.
import { mkdtempSync, rmSync } from 'node:fs';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface TestS3 {
  endpoint: string;
  port: number;
  dir: string;
  keyId: string;
  secret: string;
  stop(): Promise<void>;
}

export async function startS3(buckets: string[]): Promise<TestS3> {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const S3rver = require('s3rver') as new (o: Record<string, unknown>) => { run(): Promise<AddressInfo>; close(): Promise<void> };
  const dir = mkdtempSync(join(tmpdir(), 'gpu-rent-s3-'));
  const server = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory: dir, configureBuckets: buckets.map((name) => ({ name })) });
  const addr = await server.run();
  return {
    endpoint: `http://127.0.0.1:${addr.port}`,
    port: addr.port,
    dir,
    keyId: 'S3RVER',
    secret: 'S3RVER',
    stop: async () => {
      await server.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export interface StubStore {
  endpoint: string;
  requests: { method: string; url: string }[];
  stop(): Promise<void>;
}

/** Answers every request with `status` and an S3 error document `<Error><Code>code</Code>…`. */
export async function startStubStore(status: number, code: string, message: string, opts: { headStatus?: number; extra?: string } = {}): Promise<StubStore> {
  const requests: { method: string; url: string }[] = [];
  const server = http.createServer((req, res) => {
    requests.push({ method: req.method ?? '', url: req.url ?? '' });
    req.resume();
    req.on('end', () => {
      // `headStatus`: HEAD answers that instead (404: "not there yet", so a push goes on to its PUT).
      const st = req.method === 'HEAD' ? (opts.headStatus ?? status) : status;
      const body = req.method === 'HEAD' ? '' : `<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>${code}</Code><Message>${message}</Message>${opts.extra ?? ''}<RequestId>4442587FB7D0A2F9</RequestId></Error>`;
      res.writeHead(st, { 'content-type': 'application/xml', 'x-amz-request-id': '4442587FB7D0A2F9' });
      res.end(body);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    requests,
    stop: () => new Promise((r) => server.close(() => r())),
  };
}
