import type { Command } from 'commander';
import { FinanceApplicationService } from './finance-application.service.js';
import { ReferenceDataService } from './reference-data.service.js';
import { type CommandGroupDeps, integer, uuid } from '../platform/cli/command-group.js';

/** Reference data and the Finance application's operations (operations.md). */
export function financeCommands(program: Command, { context, output }: CommandGroupDeps): void {
  const referenceData = async () => (await context()).get(ReferenceDataService);
  const finance = async () => (await context()).get(FinanceApplicationService);

  program
    .command('customer:create')
    .description('add a customer to a company, for invoices to reference; prints {id}')
    .requiredOption('--tenant <id>', 'company id', uuid)
    .option('--name <name>')
    .action(async (options: { tenant: string; name?: string }) => {
      const customer = await (await referenceData()).createCustomer(options.tenant, options.name);
      output({ id: customer.id });
    });

  program
    .command('product:create')
    .description('add a product to a company; prints {id}')
    .requiredOption('--tenant <id>', 'company id', uuid)
    .option('--name <name>')
    .action(async (options: { tenant: string; name?: string }) => {
      const product = await (await referenceData()).createProduct(options.tenant, options.name);
      output({ id: product.id });
    });

  program
    .command('tax-rate:create')
    .description('add a tax rate to a company; prints {id}')
    .requiredOption('--tenant <id>', 'company id', uuid)
    // Trimmed as every other flag's value is (` 19` is 19), then checked by the service.
    .requiredOption('--rate <percent>', 'percentage, 0 to 100 (19 means 19 %)', (value: string) => value.trim())
    .action(async (options: { tenant: string; rate: string }) => {
      const rate = await (await referenceData()).createTaxRate(options.tenant, options.rate);
      output({ id: rate.id });
    });

  program
    .command('invoice:issue')
    .description('issue a draft invoice (as the Finance application would); prints the invoice')
    .requiredOption('--tenant <id>', 'company id', uuid)
    .requiredOption('--invoice <id>', 'invoice id', uuid)
    .action(async (options: { tenant: string; invoice: string }) => output(await (await finance()).issue(options.tenant, options.invoice)));

  program
    .command('invoice:mark-overdue')
    .description('mark an issued invoice overdue; prints the invoice')
    .requiredOption('--tenant <id>', 'company id', uuid)
    .requiredOption('--invoice <id>', 'invoice id', uuid)
    .action(async (options: { tenant: string; invoice: string }) => output(await (await finance()).markOverdue(options.tenant, options.invoice)));

  program
    .command('payment:record')
    .description('record a payment against an invoice (fires fin.invoice.paid when it settles it); prints the payment')
    .requiredOption('--tenant <id>', 'company id', uuid)
    .requiredOption('--invoice <id>', 'invoice id', uuid)
    .requiredOption('--amount-minor <n>', 'whole minor units, 1 up to the balance', integer)
    .action(async (options: { tenant: string; invoice: string; amountMinor: number }) =>
      output(await (await finance()).recordPayment(options.tenant, options.invoice, options.amountMinor)),
    );

  program
    .command('payment:refund')
    .description('refund a recorded payment; prints the payment')
    .requiredOption('--tenant <id>', 'company id', uuid)
    .requiredOption('--payment <id>', 'payment id', uuid)
    .action(async (options: { tenant: string; payment: string }) => output(await (await finance()).refundPayment(options.tenant, options.payment)));
}
