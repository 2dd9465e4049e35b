// PLACEHOLDER: replaced by the module that implements `gpu-rent smi`.
import type { CliCommand } from '../command';

export const command: CliCommand = {
  name: 'smi',
  summary: '(not yet implemented)',
  help: () => 'gpu-rent smi: not yet implemented\n',
  run: async (_argv, io) => {
    io.stderr('gpu-rent smi: not yet implemented\n');
    return 1;
  },
};
