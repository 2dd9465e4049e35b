// PLACEHOLDER: replaced by the module that implements `gpu-rent platforms`.
import type { CliCommand } from '../command';

export const command: CliCommand = {
  name: 'platforms',
  summary: '(not yet implemented)',
  help: () => 'gpu-rent platforms: not yet implemented\n',
  run: async (_argv, io) => {
    io.stderr('gpu-rent platforms: not yet implemented\n');
    return 1;
  },
};
