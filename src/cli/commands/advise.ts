// PLACEHOLDER: replaced by the module that implements `gpu-rent advise`.
import type { CliCommand } from '../command';

export const command: CliCommand = {
  name: 'advise',
  summary: '(not yet implemented)',
  help: () => 'gpu-rent advise: not yet implemented\n',
  run: async (_argv, io) => {
    io.stderr('gpu-rent advise: not yet implemented\n');
    return 1;
  },
};
