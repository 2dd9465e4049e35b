// PLACEHOLDER: replaced by the module that implements `gpu-rent sync`.
import type { CliCommand } from '../command';

export const command: CliCommand = {
  name: 'sync',
  summary: '(not yet implemented)',
  help: () => 'gpu-rent sync: not yet implemented\n',
  run: async (_argv, io) => {
    io.stderr('gpu-rent sync: not yet implemented\n');
    return 1;
  },
};
