// PLACEHOLDER: replaced by the module that implements `gpu-rent doctor`.
import type { CliCommand } from '../command';

export const command: CliCommand = {
  name: 'doctor',
  summary: '(not yet implemented)',
  help: () => 'gpu-rent doctor: not yet implemented\n',
  run: async (_argv, io) => {
    io.stderr('gpu-rent doctor: not yet implemented\n');
    return 1;
  },
};
