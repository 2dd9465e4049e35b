// PLACEHOLDER: replaced by the module that implements `gpu-rent quote`.
import type { CliCommand } from '../command';

export const command: CliCommand = {
  name: 'quote',
  summary: '(not yet implemented)',
  help: () => 'gpu-rent quote: not yet implemented\n',
  run: async (_argv, io) => {
    io.stderr('gpu-rent quote: not yet implemented\n');
    return 1;
  },
};
