// The distributed launchers a job may run under (torchrun, DeepSpeed, Accelerate): the argv
// that starts the user's script on N GPUs of one box.
import { badInput } from './errors';

export type Launcher = 'torchrun' | 'deepspeed' | 'accelerate';
export const LAUNCHERS: readonly Launcher[] = ['torchrun', 'deepspeed', 'accelerate'];

/** Wraps argv in a distributed launcher with the given number of GPUs. */
export function wrapWithLauncher(launcher: Launcher, gpus: number, argv: string[]): string[] {
  if (!Number.isInteger(gpus) || gpus < 1) throw badInput({ code: 'gpus-invalid', gpus });
  if (argv.length === 0) throw badInput({ code: 'launch-command-missing' });
  // `python train.py …` → the launcher runs `train.py …` with its own Python.
  const isPython = /^(?:.*\/)?python(?:3(?:\.\d+)?)?$/.test(argv[0]!);
  const script = isPython ? argv.slice(1) : argv;
  if (script.length === 0) throw badInput({ code: 'launch-script-missing' });
  const direct = !isPython && !script[0]!.endsWith('.py');
  switch (launcher) {
    case 'torchrun':
      return ['torchrun', '--standalone', `--nproc_per_node=${gpus}`, ...(direct ? ['--no-python'] : []), ...script];
    case 'deepspeed':
      return ['deepspeed', `--num_gpus=${gpus}`, ...(direct ? ['--no_python'] : []), ...script];
    case 'accelerate':
      return ['accelerate', 'launch', `--num_processes=${gpus}`, ...(gpus > 1 ? ['--multi_gpu'] : []), ...(direct ? ['--no_python'] : []), ...script];
  }
}
