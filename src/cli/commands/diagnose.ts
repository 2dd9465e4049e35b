// PLACEHOLDER: replaced by the module that implements `gpu-rent diagnose`.
import type { CliCommand } from '../command';

export const command: CliCommand = {
  name: 'diagnose',
  summary: '(not yet implemented)',
  help: () => 'gpu-rent diagnose: not yet implemented\n',
  run: async (_argv, io) => {
    io.stderr('gpu-rent diagnose: not yet implemented\n');
    return 1;
  },
};
