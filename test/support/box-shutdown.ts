// AutoDL's shutdown inside an instance is its 关机 (the instance stops, the GPU billing stops). For
// the platform test server: a loopback POST the box's stand-in power-off (GPU_RENT_TEST_BOX_POWER_OFF)
// curls, which shuts the instance down there (shutting_down → shutdown after transitionMs).
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { FakeInstance, PlatformServer } from './platform-server';


export function boxShutdownHook(s: PlatformServer, inst: FakeInstance): Promise<{ server: Server; command: string; stoppedAt: () => number | null }> {
  let at: number | null = null;
  const server = createServer((req, res) => {
    if (req.method === 'POST' && req.url === '/box-shutdown') {
      at = Date.now() + s.transitionMs;
      inst.state = 'shutting_down';
      inst.stoppedAt = new Date(at).toISOString().replace(/\.\d+Z$/, 'Z');
      inst.pending = { state: 'shutdown', at };
    }
    res.end('ok');
  });
  return new Promise((r) => server.listen(0, '127.0.0.1', () => r({ server, command: `curl -fsS -X POST http://127.0.0.1:${(server.address() as AddressInfo).port}/box-shutdown`, stoppedAt: () => at })));
}

