import { Controller, HttpCode, Inject, Param, Patch, Post } from '@nestjs/common';
import { ApiBody, ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { type AuthContext, CurrentAuth } from '../platform/auth/auth-context.js';
import { RequireScopes } from '../platform/route-access/require-scopes.decorator.js';
import { Scope } from '../platform/catalog/scopes.js';
import { Idempotent } from '../platform/idempotency/idempotent.decorator.js';
import { ApiProblem, detailKey } from '../platform/api-docs/api-problem-responses.decorator.js';
import { resourceErrors } from '../platform/catalog/errors.js';
import { invoicesResource } from './invoices.resource.js';
import { UuidPipe } from '../platform/validation/uuid.pipe.js';
import { ValidBody } from '../platform/validation/validated-body.js';
import { CreateInvoiceDto } from './dto/create-invoice.dto.js';
import { InvoiceDto } from './dto/invoice.dto.js';
import { UpdateInvoiceDto } from './dto/update-invoice.dto.js';
import { VoidInvoiceDto } from './dto/void-invoice.dto.js';
import { InvoicesService } from './invoices.service.js';

const ID_PARAM = ApiParam({ name: 'id', schema: { type: 'string', format: 'uuid' } });
const NOT_FOUND = ApiProblem(404, `\`${resourceErrors(invoicesResource.name).notFound.detailKey}\`: no such invoice for this company.`);

const CREATE_ERRORS =
  'A body with several faults answers with the first check that fails, in this order: ' +
  '`invalid_body` (not a JSON object, or not JSON at all) → `required` (customer_id, currency or lines absent or null; `field` names the first) → ' +
  '`line_invalid` (the first line that is not an object or whose qty, unit_price_minor or tax_rate is missing, not a number, ' +
  'negative, not whole (unit_price_minor) or over its limit — qty ≤ 1,000,000,000, unit_price_minor ≤ 2^53−1, tax_rate ≤ 100 — ' +
  'or whose qty × unit_price_minor exceeds 2^53−1; `field` and `code` say which) → `validation_failed` (all other member faults ' +
  'in `errors[]`: unknown_field, invalid_type, invalid_format, invalid_date, out_of_range (dates 1900-01-01 to 2999-12-31), ' +
  'due_before_issue, too_long, required (line description), min_items (empty `lines`), max_items (over 500 lines)) → ' +
  '`currency_not_enabled` → `invalid_reference` (customer, then products, then tax rates; `field` names the member) → ' +
  '`line_invalid` with code tax_rate_conflict → `create_failed` (code total_out_of_range: the total would exceed 2^53−1).';

@ApiTags('Invoices')
@Controller('v1/invoices')
export class InvoiceWritesController {
  constructor(@Inject(InvoicesService) private readonly invoices: InvoicesService) {}

  @Post()
  @HttpCode(201)
  @RequireScopes(Scope.FinInvoicesWrite)
  @Idempotent<InvoiceDto>({ answersWithResult: true, location: (invoice) => `/v1/invoices/${invoice.id}` })
  @ApiOperation({
    summary: 'Create a draft invoice',
    description:
      'Totals are computed from the lines: net = round(qty × unit_price_minor), tax = round(net × tax_rate / 100), ' +
      'half away from zero; subtotal and tax are the sums, total = subtotal + tax. issue_date defaults to today (UTC), ' +
      `due_date to issue_date + 14 days. Fires fin.invoice.created. ${CREATE_ERRORS}`,
  })
  @ApiBody({ type: CreateInvoiceDto })
  @ApiCreatedResponse({ type: InvoiceDto, headers: { Location: { description: 'URL of the new invoice.', schema: { type: 'string' } } } })
  @ApiProblem(
    422,
    `In the order of the checks: ${detailKey('InvoiceInvalidBody')} (also a body that is not JSON, refused before authentication), ${detailKey('InvoiceRequired')}, ${detailKey('InvoiceLineInvalid')}, ` +
      `${detailKey('InvoiceValidationFailed')}, ${detailKey('CurrencyNotEnabled')}, ${detailKey('InvalidReference')}, ${detailKey('InvoiceLineInvalid')} ` +
      `(code tax_rate_conflict), ${detailKey('InvoiceCreateFailed')}; see the description.`,
  )
  create(@CurrentAuth() auth: AuthContext, @ValidBody(CreateInvoiceDto) body: CreateInvoiceDto): Promise<InvoiceDto> {
    return this.invoices.create(auth.tenantId, body);
  }

  @Patch(':id')
  @RequireScopes(Scope.FinInvoicesWrite)
  @Idempotent({ answersWithResult: true })
  @ID_PARAM
  @ApiOperation({
    summary: 'Change a draft invoice',
    description:
      'Writable fields: customer_id, currency, issue_date, due_date, notes (null clears notes). Any other member, lines ' +
      'included, is refused with `validation_failed` (unknown_field). Order of checks (a body that is not JSON at all is refused ' +
        'first, as `invalid_body`, before authentication and the id): `invalid_input` (id) → `invalid_body` → ' +
      '`validation_failed` (body) → `no_writable_fields` (`{}`) → 404 → `update_failed` (not a draft) → `validation_failed` ' +
      '(due_date before issue_date on the changed invoice) → `currency_not_enabled` → `invalid_reference`. Every valid PATCH ' +
      'fires fin.invoice.updated and moves updated_at, also when its values are the stored ones.',
  })
  @ApiBody({ type: UpdateInvoiceDto })
  @ApiOkResponse({ type: InvoiceDto })
  @NOT_FOUND
  @ApiProblem(
    422,
    `In the order of the checks (a body that is not JSON is refused first of all, before authentication, as ${detailKey('InvoiceInvalidBody')}): ${detailKey('InvalidInput')} (an id not a UUID), ${detailKey('InvoiceInvalidBody')}, ` +
      `${detailKey('InvoiceValidationFailed')}, ${detailKey('InvoiceNoWritableFields')}, (404), ${detailKey('InvoiceUpdateFailed')}, ` +
      `${detailKey('InvoiceValidationFailed')} (due_before_issue), ${detailKey('CurrencyNotEnabled')}, ${detailKey('InvalidReference')}.`,
  )
  update(@CurrentAuth() auth: AuthContext, @Param('id', UuidPipe) id: string, @ValidBody(UpdateInvoiceDto) body: UpdateInvoiceDto): Promise<InvoiceDto> {
    return this.invoices.update(auth.tenantId, id, body);
  }

  @Post(':id/void')
  @HttpCode(200)
  @RequireScopes(Scope.FinInvoicesWrite)
  @Idempotent({ answersWithResult: true })
  @ID_PARAM
  @ApiOperation({
    summary: 'Void an issued invoice',
    description:
      'Optional body `{ "reason": string|null }` (at most 500 characters), kept in the audit trail with the API key and on the ' +
      'reversing credit note. Sets status void, voided_at and balance_minor 0, posts a credit note for the full amounts and ' +
      'fires fin.invoice.voided. Draft, paid or void → `invalid_invoice_status_for_void`; an invoice with a received, ' +
      'unrefunded payment → `void_failed`. A non-object body is `invalid_body`, an unknown member or a bad reason `validation_failed`.',
  })
  @ApiBody({ type: VoidInvoiceDto, required: false })
  @ApiOkResponse({ type: InvoiceDto })
  @NOT_FOUND
  @ApiProblem(
    422,
    `In the order of the checks (a body that is not JSON is refused first of all, before authentication, as ${detailKey('InvoiceInvalidBody')}): ` +
      `${detailKey('InvalidInput')} (an id not a UUID), ${detailKey('InvoiceInvalidBody')}, ${detailKey('InvoiceValidationFailed')} ` +
      `(an unknown member or a bad reason), ${detailKey('InvalidInvoiceStatusForVoid')} (draft, paid or void), ${detailKey('InvoiceVoidFailed')} ` +
      '(a received, unrefunded payment).',
  )
  void(@CurrentAuth() auth: AuthContext, @Param('id', UuidPipe) id: string, @ValidBody(VoidInvoiceDto) body: VoidInvoiceDto): Promise<InvoiceDto> {
    return this.invoices.void(auth, id, body);
  }
}
