// PLACEHOLDER: replaced by the module that implements `gpu-rent run`.
import type { CliCommand } from '../command';

export const command: CliCommand = {
  name: 'run',
  summary: '(not yet implemented)',
  help: () => 'gpu-rent run: not yet implemented\n',
  run: async (_argv, io) => {
    io.stderr('gpu-rent run: not yet implemented\n');
    return 1;
  },
};
