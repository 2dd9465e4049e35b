// PLACEHOLDER: replaced by the module that implements `gpu-rent logs`.
import type { CliCommand } from '../command';

export const command: CliCommand = {
  name: 'logs',
  summary: '(not yet implemented)',
  help: () => 'gpu-rent logs: not yet implemented\n',
  run: async (_argv, io) => {
    io.stderr('gpu-rent logs: not yet implemented\n');
    return 1;
  },
};
