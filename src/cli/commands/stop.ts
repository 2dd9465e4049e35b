// PLACEHOLDER: replaced by the module that implements `gpu-rent stop`.
import type { CliCommand } from '../command';

export const command: CliCommand = {
  name: 'stop',
  summary: '(not yet implemented)',
  help: () => 'gpu-rent stop: not yet implemented\n',
  run: async (_argv, io) => {
    io.stderr('gpu-rent stop: not yet implemented\n');
    return 1;
  },
};
