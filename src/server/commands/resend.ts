/**
 * `resend`: redelivers webhook deliveries (runner: run/resend.ts).
 * @module
 */
import type { Command } from 'commander';
import { UsageError } from './usage.js';
import { type Connection, parseConnection, withConnection } from './connection.js';
import type { CommandSpec } from './spec.js';

/** Options of `resend`: one delivery, or every failed one. */
export type ResendOptions = Connection & ({ failed: true } | { failed: false; deliveryId: string });

export const resend: CommandSpec<'resend', ResendOptions> = {
  kind: 'resend',
  synopsis: 'resend <delivery-id> | --failed',
  define(program: Command): Command {
    return withConnection(
      program
        .command('resend')
        .summary('redeliver a webhook delivery, or every failed one')
        .description(`Queue a new attempt of a webhook delivery (POST /v1/webhook_deliveries/{id}/redeliver),
or, with --failed, of every failed delivery of every endpoint. Prints each delivery and its status.`)
        .argument('[delivery-id]', 'the delivery to resend')
        .option('--failed', 'resend every failed delivery of every endpoint'),
    );
  },
  parse(values, args) {
    const connection = parseConnection(values);
    const id = args[0];
    if (values['failed'] === true) {
      if (id !== undefined) throw new UsageError('Give a delivery id or --failed, not both.');
      return { ...connection, failed: true };
    }
    if (id === undefined) throw new UsageError('Give a delivery id (e.g. from listen or the deliveries list) or --failed.');
    return { ...connection, failed: false, deliveryId: id };
  },
};
