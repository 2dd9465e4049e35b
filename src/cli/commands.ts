// The command table. Each command lives in its own module under ./commands/.
import type { CliCommand } from './command';
import { command as platformsCmd } from './commands/platforms';
import { command as quoteCmd } from './commands/quote';
import { command as adviseCmd } from './commands/advise';
import { command as smiCmd } from './commands/smi';
import { command as diagnoseCmd } from './commands/diagnose';
import { command as doctorCmd } from './commands/doctor';
import { command as probeCmd } from './commands/probe';
import { command as runCmd } from './commands/run';
import { command as jobsCmd } from './commands/jobs';
import { command as logsCmd } from './commands/logs';
import { command as stopCmd } from './commands/stop';
import { command as syncCmd } from './commands/sync';
import { guardCommands } from './guard-commands';

export const commands: CliCommand[] = [platformsCmd, quoteCmd, adviseCmd, smiCmd, diagnoseCmd, doctorCmd, probeCmd, runCmd, jobsCmd, logsCmd, stopCmd, syncCmd, ...guardCommands];
