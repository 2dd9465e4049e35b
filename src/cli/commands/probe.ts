// PLACEHOLDER: replaced by the module that implements `gpu-rent probe`.
import type { CliCommand } from '../command';

export const command: CliCommand = {
  name: 'probe',
  summary: '(not yet implemented)',
  help: () => 'gpu-rent probe: not yet implemented\n',
  run: async (_argv, io) => {
    io.stderr('gpu-rent probe: not yet implemented\n');
    return 1;
  },
};
