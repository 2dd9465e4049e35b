// PLACEHOLDER: replaced by the module that implements `gpu-rent jobs`.
import type { CliCommand } from '../command';

export const command: CliCommand = {
  name: 'jobs',
  summary: '(not yet implemented)',
  help: () => 'gpu-rent jobs: not yet implemented\n',
  run: async (_argv, io) => {
    io.stderr('gpu-rent jobs: not yet implemented\n');
    return 1;
  },
};
