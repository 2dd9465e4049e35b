// Writes schemas/gpu-rent-task.schema.json from the task file's zod schema (src/core/task/schema.ts),
// so the editor (the YAML extension, via contributes.yamlValidation) completes and explains each field.
// Draft-07: the YAML language server validates with draft-07 (newer drafts are only partly supported).
//   npx tsx scripts/task-schema.ts          write the file
//   npx tsx scripts/task-schema.ts --check  exit 1 when the committed file differs
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { taskFileInputSchema } from '../src/core/task/schema';

export const TASK_SCHEMA_PATH = join(__dirname, '..', 'schemas', 'gpu-rent-task.schema.json');

/** The JSON Schema text exactly as committed (2-space JSON, a final newline). */
export function renderTaskSchema(): string {
  const schema = z.toJSONSchema(taskFileInputSchema, { target: 'draft-07', io: 'input', unrepresentable: 'throw' });
  return `${JSON.stringify(schema, null, 2)}\n`;
}

if (require.main === module) {
  const text = renderTaskSchema();
  if (process.argv.includes('--check')) {
    let committed = '';
    try {
      committed = readFileSync(TASK_SCHEMA_PATH, 'utf8');
    } catch {
      /* missing: differs */
    }
    if (committed !== text) {
      process.stderr.write(`${TASK_SCHEMA_PATH} is out of date: run npx tsx scripts/task-schema.ts\n`);
      process.exit(1);
    }
  } else {
    writeFileSync(TASK_SCHEMA_PATH, text);
    process.stdout.write(`wrote ${TASK_SCHEMA_PATH} (${text.length} bytes)\n`);
  }
}
