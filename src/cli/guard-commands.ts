// Commands from the money-and-data guards (issue 6), kept in their own table.
import type { CliCommand } from './command';
import { command as idleCheckCmd } from './commands/guards/idle-check';
import { command as watchdogCmd } from './commands/guards/watchdog';
import { command as secureUploadCmd } from './commands/guards/secure-upload';
import { command as wipeCmd } from './commands/guards/wipe';
import { command as scanSecretsCmd } from './commands/guards/scan-secrets';
import { command as envCmd } from './commands/guards/env';
import { command as peakCmd } from './commands/guards/peak';
import { command as spotCheckCmd } from './commands/guards/spot-check';
import { command as spendCmd } from './commands/guards/spend';
import { command as releaseCheckCmd } from './commands/guards/release-check';

export const guardCommands: CliCommand[] = [idleCheckCmd, watchdogCmd, secureUploadCmd, wipeCmd, scanSecretsCmd, envCmd, peakCmd, spotCheckCmd, spendCmd, releaseCheckCmd];
