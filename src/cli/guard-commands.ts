// Commands from the money-and-data guards (issue 6), kept in their own table.
import type { CliCommand } from './command';

export const guardCommands: CliCommand[] = [];
