/**
 * JSON schemas (OpenAPI 3.1 / JSON Schema 2020-12) of the `data` of events whose resource has no
 * read endpoint, and so no response DTO to borrow: the 64 compliance, e-invoicing, DATEV,
 * tachograph, dashcam and e-signature types, identity and messaging. They are published as
 * components of the OpenAPI document under these names; the catalogue refers to them, and to the
 * read DTOs of the other families, by `$ref`.
 */
export type JsonSchema = { [keyword: string]: unknown };

/** What describes a member, where it helps: kept out of the types, so each helper's type is just its data's shape. */
const about = (description?: string): { description?: string } => (description ? { description } : {});

const text = (description?: string, example?: string) => ({ type: 'string' as const, ...about(description), ...(example ? { examples: [example] } : {}) });
const id = (description?: string) => ({ type: 'string' as const, format: 'uuid', ...about(description) });
const timestamp = (description?: string) => ({ type: 'string' as const, format: 'date-time', ...about(description) });
const date = (description?: string) => ({ type: 'string' as const, format: 'date', ...about(description) });
const integer = (description?: string, minimum = 0) => ({ type: 'integer' as const, minimum, ...about(description) });
const number = (description?: string) => ({ type: 'number' as const, ...about(description) });
const bool = (description?: string) => ({ type: 'boolean' as const, ...about(description) });
const oneOf = <const V extends readonly string[]>(values: V, description?: string) => ({ type: 'string' as const, enum: values, ...about(description) });
const list = <I extends object>(items: I, description?: string) => ({ type: 'array' as const, items, ...about(description) });
/** OpenAPI 3.1 spells "or null" as a type list; an enum must list null too, or it still refuses it. */
const orNull = <S extends { type: string; enum?: readonly string[] }>(schema: S) => ({
  ...schema,
  type: [schema.type, 'null'] as [S['type'], 'null'],
  ...(schema.enum ? { enum: [...schema.enum, null] } : {}),
});
/**
 * A member a later state sets: null in the record's example, which shows it as it starts (the
 * catalogue's per-type `example` sets it for the types that name such a state).
 */
const later = <S extends { type: string }>(schema: S) => ({ ...orNull(schema), examples: [null] });
/** An object whose every member is required (null, where allowed, is spelled out). */
const object = <P extends Record<string, object>>(properties: P, description?: string) => ({
  type: 'object' as const,
  ...about(description),
  required: Object.keys(properties),
  properties,
});

const record = <P extends Record<string, object>>(description: string, properties: P) =>
  object({ id: id(), ...properties, created_at: timestamp(), updated_at: timestamp() }, description);

/**
 * The TypeScript type of data matching a schema built by the helpers above: the few keywords
 * they use, every object member required as `object` declares. (A general JSON-Schema-to-type
 * library would add a dependency for what these ten lines cover exactly.)
 */
export type DataOf<S> = S extends { type: readonly [infer T, 'null'] }
  ? DataOf<Omit<S, 'type'> & { type: T }> | null
  : S extends { enum: readonly (infer V)[] }
    ? V
    : S extends { type: 'string' }
      ? string
      : S extends { type: 'integer' | 'number' }
        ? number
        : S extends { type: 'boolean' }
          ? boolean
          : S extends { type: 'array'; items: infer I }
            ? DataOf<I>[]
            : S extends { type: 'object'; properties: infer P }
              ? { [K in keyof P]: DataOf<P[K]> }
              : unknown;

export const EVENT_DATA_SCHEMAS = {
  IdentityUser: record('A user of the company.', {
    email: text('Login e-mail address.', 'jana.keller@example.com'),
    first_name: text(undefined, 'Jana'),
    last_name: text(undefined, 'Keller'),
    status: oneOf(['active', 'deactivated']),
  }),
  Message: record('A message sent through the company’s messaging.', {
    conversation_id: id(),
    sender_user_id: id('The user who sent it.'),
    recipient_user_ids: list(id(), 'Users it was sent to.'),
    channel: oneOf(['chat', 'email', 'sms']),
    body_text: text('The message text.', 'The van for Friday is booked; keys are at reception.'),
    sent_at: timestamp(),
  }),

  WhistleblowingReport: record('A report under the EU Whistleblowing Directive (2019/1937). Never names the reporter.', {
    reference: text('Case reference.', 'WB-2026-000042'),
    channel: oneOf(['web_form', 'hotline', 'email', 'mail', 'in_person']),
    category: oneOf(['fraud', 'corruption', 'harassment', 'discrimination', 'health_safety', 'data_protection', 'environment', 'other']),
    status: oneOf(['received', 'acknowledged', 'investigating', 'closed']),
    anonymous: bool('Whether the reporter stayed anonymous.'),
    received_at: timestamp(),
    acknowledged_at: later(timestamp('Acknowledgement to the reporter (due within 7 days).')),
    closed_at: later(timestamp()),
    outcome: later(oneOf(['substantiated', 'unsubstantiated', 'withdrawn', 'referred'])),
  }),
  PayTransparencyRequest: record('An employee’s request for pay information (EU Pay Transparency Directive 2023/970, art. 7).', {
    employee_id: id('The requesting employee.'),
    status: oneOf(['received', 'answered']),
    received_at: timestamp(),
    due_date: date('Answer due (two months after receipt).'),
    answered_at: later(timestamp()),
  }),
  PayTransparencyReport: record('A published gender pay gap report (EU Pay Transparency Directive, art. 9).', {
    reporting_year: { ...integer('Calendar year reported on.', 2000), examples: [2025] },
    employee_count: integer(),
    mean_gender_pay_gap_percent: number('Mean gap between female and male pay, in percent of male pay.'),
    median_gender_pay_gap_percent: number(),
    published_at: timestamp(),
  }),
  ComplianceTraining: record('A compliance training assigned to an employee.', {
    employee_id: id(),
    course_name: text(undefined, 'Anti-bribery basics'),
    status: oneOf(['assigned', 'completed', 'overdue']),
    due_date: date(),
    completed_at: later(timestamp()),
  }),
  CompliancePolicy: record('A company policy version.', {
    title: text(undefined, 'Code of conduct'),
    version: text(undefined, '3.1'),
    effective_date: date(),
    published_at: timestamp(),
  }),
  PolicyAcknowledgement: record('An employee’s acknowledgement of a policy version.', {
    policy_id: id(),
    policy_version: text(undefined, '3.1'),
    employee_id: id(),
    acknowledged_at: timestamp(),
  }),
  ComplianceIncident: record('A compliance incident (data breach, safety, environmental, regulatory).', {
    reference: text(undefined, 'INC-2026-000007'),
    type: oneOf(['data_breach', 'safety', 'environmental', 'regulatory', 'other']),
    severity: oneOf(['low', 'medium', 'high', 'critical']),
    status: oneOf(['reported', 'investigating', 'resolved']),
    occurred_at: timestamp(),
    reported_at: timestamp(),
    resolved_at: later(timestamp()),
  }),
  ComplianceAudit: record('An internal or external audit.', {
    title: text(undefined, 'ISO 27001 surveillance audit'),
    standard: orNull(text(undefined, 'ISO/IEC 27001:2022')),
    auditor_name: text('Auditing organisation.', 'DEKRA Certification GmbH'),
    status: oneOf(['scheduled', 'completed']),
    scheduled_date: date(),
    completed_at: later(timestamp()),
    findings_count: later(integer('Findings, once completed.')),
  }),
  DataSubjectRequest: record('A request under GDPR articles 15-21.', {
    type: oneOf(['access', 'rectification', 'erasure', 'restriction', 'portability', 'objection']),
    status: oneOf(['received', 'completed', 'rejected']),
    received_at: timestamp(),
    due_date: date('Answer due (one month after receipt).'),
    completed_at: later(timestamp()),
  }),
  ComplianceCertification: record('A certification the company holds.', {
    name: text(undefined, 'ISO 9001'),
    issuer: text(undefined, 'TÜV SÜD'),
    certificate_number: text(undefined, 'QM-2026-004711'),
    valid_until: date(),
  }),

  EInvoice: record('An electronic invoice document (EN 16931) exchanged with a business partner.', {
    invoice_id: orNull(id('The invoice it carries (outbound), an id of GET /v1/invoices.')),
    direction: oneOf(['outbound', 'inbound']),
    format: oneOf(['xrechnung', 'zugferd', 'factur_x', 'peppol_bis']),
    network: oneOf(['peppol', 'email', 'portal']),
    status: oneOf(['created', 'valid', 'invalid', 'sent', 'delivered', 'accepted', 'rejected', 'received', 'cancelled', 'archived']),
    document_number: text(undefined, 'INV-2026-000123'),
    sender_id: text('Sender’s electronic address (e.g. Peppol participant id).', '0204:991-12345-67'),
    receiver_id: text('Receiver’s electronic address.', '9930:DE123456789'),
    total_minor: integer(),
    currency: text('ISO 4217.', 'EUR'),
    // None while the document is valid; the types of a failed validation or a rejection list them.
    validation_errors: { ...list(object({ code: text(undefined, 'BR-DE-15'), message: text() }), 'Rule violations (status invalid or rejected).'), examples: [[]] },
    status_changed_at: timestamp(),
  }),
  DatevExport: record('An export of bookings, master data or documents for a DATEV tax consultant.', {
    type: oneOf(['bookings', 'master_data', 'documents']),
    period_start_date: date(),
    period_end_date: date(),
    consultant_number: text('DATEV consultant number.', '1234567'),
    client_number: text('DATEV client number.', '10042'),
    status: oneOf(['requested', 'running', 'completed', 'failed', 'cancelled', 'deleted']),
    record_count: later(integer()),
    file_size_bytes: later(integer()),
    failure_reason: later(text()),
    completed_at: later(timestamp()),
  }),

  TachographFile: record('A tachograph download (EU regulation 165/2014): a driver card or a vehicle unit.', {
    source: oneOf(['driver_card', 'vehicle_unit']),
    driver_id: orNull(id('The driver (an id of GET /v1/employees).')),
    vehicle_id: orNull(id('The vehicle (an id of GET /v1/vehicles).')),
    file_name: text(undefined, 'C_20260516_1200_K_Mueller_DE12345678901234.DDD'),
    status: oneOf(['downloaded', 'processed', 'failed']),
    downloaded_at: timestamp(),
    activity_start_at: later(timestamp()),
    activity_end_at: later(timestamp()),
    failure_reason: later(text()),
  }),
  TachographDownloadDue: record('A legally required download that is overdue (driver card every 28 days, vehicle unit every 90 days).', {
    subject: oneOf(['driver_card', 'vehicle_unit']),
    driver_id: orNull(id()),
    vehicle_id: orNull(id()),
    last_download_at: orNull(timestamp()),
    due_date: date(),
  }),
  TachographInfringement: record('A driving or rest time infringement found in tachograph data (EC 561/2006).', {
    driver_id: id(),
    vehicle_id: orNull(id()),
    type: oneOf(['daily_driving_exceeded', 'weekly_driving_exceeded', 'fortnightly_driving_exceeded', 'break_missing', 'daily_rest_short', 'weekly_rest_short']),
    severity: oneOf(['minor', 'serious', 'very_serious', 'most_serious']),
    regulation: text(undefined, 'EC 561/2006 Art. 7'),
    occurred_at: timestamp(),
    details: text(undefined, 'Driving time 10 h 12 min between two daily rests; the limit is 10 h.'),
  }),
  DrivingTimeWarning: record('A live warning that a driver approaches a driving time limit.', {
    driver_id: id(),
    vehicle_id: orNull(id()),
    type: oneOf(['break_due', 'daily_driving_limit', 'weekly_driving_limit']),
    remaining_minutes: integer(),
    detected_at: timestamp(),
  }),
  TachographCard: record('A tachograph card nearing its expiry date.', {
    type: oneOf(['driver', 'company', 'workshop']),
    card_number: text(undefined, 'DE12345678901234'),
    holder_driver_id: orNull(id('For a driver card, the driver.')),
    expiry_date: date(),
  }),

  DashcamEvent: record('A driving event a dashcam detected.', {
    device_id: id(),
    vehicle_id: orNull(id()),
    driver_id: orNull(id()),
    type: oneOf(['harsh_braking', 'harsh_acceleration', 'harsh_cornering', 'speeding', 'collision', 'distraction', 'drowsiness', 'phone_use', 'no_seatbelt']),
    severity: oneOf(['low', 'medium', 'high']),
    occurred_at: timestamp(),
    latitude: number(),
    longitude: number(),
    speed_kmh: orNull(number()),
    video_id: orNull(id('The clip of the event, once requested or uploaded.')),
  }),
  DashcamVideo: record('A dashcam video clip.', {
    device_id: id(),
    vehicle_id: orNull(id()),
    event_id: orNull(id('The event it shows, if any.')),
    status: oneOf(['requested', 'uploaded', 'deleted']),
    start_at: timestamp(),
    end_at: timestamp(),
    size_bytes: later(integer()),
    uploaded_at: later(timestamp()),
    deleted_at: later(timestamp()),
  }),
  DashcamDevice: record('A dashcam device.', {
    serial_number: text(undefined, 'DC4-00921'),
    model: text(undefined, 'Nexar Pro DC4'),
    vehicle_id: orNull(id()),
    status: oneOf(['online', 'offline', 'tampered']),
    firmware_version: text(undefined, '4.2.1'),
    last_seen_at: timestamp(),
  }),

  SignatureEnvelope: record('Documents sent for electronic signature (eIDAS) and their signers.', {
    title: text(undefined, 'Employment contract J. Keller'),
    document_ids: list(id(), 'Documents (ids of GET /v1/documents).'),
    status: oneOf(['draft', 'sent', 'completed', 'declined', 'voided', 'expired']),
    signers: list(
      object({
        id: id(),
        name: text(undefined, 'Jana Keller'),
        email: text(undefined, 'jana.keller@example.com'),
        status: oneOf(['pending', 'viewed', 'signed', 'declined']),
        signed_at: later(timestamp()),
      }),
    ),
    sent_at: later(timestamp()),
    completed_at: later(timestamp()),
    expires_at: { ...orNull(timestamp('When unsigned signers can no longer sign.')), examples: ['2026-06-15T22:00:00.000Z'] },
  }),
} satisfies Record<string, JsonSchema>;

export type EventDataSchemaName = keyof typeof EVENT_DATA_SCHEMAS;

/** The data of an EVENT_DATA_SCHEMAS entry. */
export type EventDataSchemaData<N extends EventDataSchemaName> = DataOf<(typeof EVENT_DATA_SCHEMAS)[N]>;
