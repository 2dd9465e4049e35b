// The training script the launch tests run on real boxes (test/integration/launch.test.ts,
// test/vscode/suite/65-launch.test.ts).
// Our own test program (not a captured log): N steps, a tqdm-shaped bar per step, a checkpoint
// folder every K steps (written under a temporary name, then renamed: complete or absent), and
// --resume DIR to start after the step a checkpoint holds; with NAN_FROM=K a Trainer-style loss
// line per step, `{'loss': nan, …}` from step K on (a diverged run).
export const TRAIN_PY = `import os, sys, time
args = sys.argv[1:]
out = args[args.index('--out') + 1]
n = int(os.environ.get('STEPS', '20')); every = int(os.environ.get('EVERY', '5')); delay = float(os.environ.get('DELAY', '0.3'))
nan_from = int(os.environ.get('NAN_FROM', '0'))
start = 0
if '--resume' in args:
    p = args[args.index('--resume') + 1]
    start = int(open(os.path.join(p, 'step')).read())
    print('resumed from', p, 'at step', start, flush=True)
os.makedirs(out, exist_ok=True)
for i in range(start + 1, n + 1):
    time.sleep(delay)
    print('%3d%%|%-10s| %d/%d [00:01<00:05, %.2fit/s]' % (i * 100 // n, '#' * (i * 10 // n), i, n, 1 / delay), flush=True)
    if nan_from:
        print("{'loss': %s, 'learning_rate': 5e-05, 'epoch': %.2f}" % ('nan' if i >= nan_from else '%.4f' % (2.5 - i * 0.01), i / n), flush=True)
    if i % every == 0:
        d = os.path.join(out, 'step-%04d' % i)
        os.makedirs(d + '.tmp', exist_ok=True)
        open(os.path.join(d + '.tmp', 'weights.bin'), 'wb').write(os.urandom(2048))
        open(os.path.join(d + '.tmp', 'step'), 'w').write(str(i))
        os.rename(d + '.tmp', d)
print('training done', flush=True)
`;

