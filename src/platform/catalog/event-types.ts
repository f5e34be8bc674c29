import type { EventDataSchemaData, EventDataSchemaName, JsonSchema } from './event-data-schemas.js';
import { Scope } from './scopes.js';

/**
 * The event catalogue (spec section 6): every event type with the scope a key needs to
 * subscribe to it, whether it carries personal data (delivered only to endpoints that support
 * enabled for personal data) and the JSON schema of its `data`. `scope: Scope.All` marks the
 * 64 events without a read endpoint. Schemas are `$ref`s into the OpenAPI components: the read
 * DTO of the resource (`data` is the resource as the API shows it) or an entry of
 * EVENT_DATA_SCHEMAS.
 */
export interface EventDefinition {
  readonly scope: Scope;
  readonly personalData: boolean;
  readonly description: string;
  /** The OpenAPI component `data` follows. */
  readonly data: DataComponent;
  readonly dataSchema: JsonSchema;
  /**
   * What a test event of this type sets over its component's example, which shows a record in
   * the state it starts in: the state the type names, and the members tied to it.
   */
  readonly example?: Readonly<Record<string, unknown>>;
}

/**
 * The OpenAPI component of an EVENT_DATA_SCHEMAS entry, or of a readable resource's item DTO
 * (its class name): test/resource-registry.e2e-spec.ts checks each such name against the registry.
 */
type DataComponent = EventDataSchemaName | `${string}Dto`;

const componentRef = (name: string): JsonSchema => ({ $ref: `#/components/schemas/${name}` });

/**
 * `personalData` has no default: a type left unmarked would go to every endpoint, those not
 * enabled for personal data included (spec 6.4), so each type says which it is.
 */
const event = <const D extends DataComponent>(scope: Scope, data: D, description: string, personalData: boolean, example?: Record<string, unknown>) => ({
  scope,
  personalData,
  description,
  data,
  dataSchema: componentRef(data),
  ...(example ? { example: { ...example, ...lastChange(example) } } : {}),
});

/**
 * A record past its first state (its example sets a time or a status) was last changed at the
 * latest time its example sets, or at LATER; one shown as it starts (only other members set, as
 * `esign.envelope.created`'s signers) keeps its component's `updated_at`.
 */
function lastChange(example: Record<string, unknown>): { updated_at?: string } {
  const times = JSON.stringify(example).match(/\d{4}-\d\d-\d\dT[\d:.]+Z/g) ?? [];
  if (times.length === 0 && !('status' in example) && !('employment_status' in example)) return {};
  return { updated_at: [LATER, ...times].sort().at(-1)! };
}

/** Times and an invoice number for examples of records past their first state (a component's own example shows 2026-05-16T09:30). */
const LATER = '2026-05-20T08:00:00.000Z';
/** A second step after LATER (a case acknowledged, then closed). */
const LATEST = '2026-06-03T15:00:00.000Z';
const ISSUED = { number: 'INV-2026-000042', issued_at: '2026-05-16T10:00:00.000Z' };
/** The invoice example's total (InvoiceDto): a paid invoice has paid all of it. */
const INVOICE_TOTAL_MINOR = 21420;

/** An event without a read endpoint: only `int:*` keys may subscribe. */
const unlisted = <const D extends EventDataSchemaName>(data: D, description: string, personalData: boolean, example?: Partial<EventDataSchemaData<D>>) =>
  event(Scope.All, data, description, personalData, example);

/** A signer of the SignatureEnvelope example, in the state `status` names. */
const signer = (status: 'pending' | 'viewed' | 'signed' | 'declined', person: 'first' | 'second' = 'first') => ({
  ...(person === 'first'
    ? { id: '6f1d3c0a-51b7-4c52-9d0e-2a8b7e4f1c01', name: 'Jana Keller', email: 'jana.keller@example.com' }
    : { id: '6f1d3c0a-51b7-4c52-9d0e-2a8b7e4f1c02', name: 'Tobias Brandt', email: 'tobias.brandt@example.com' }),
  status,
  signed_at: status === 'signed' ? LATEST : null,
});
const SENT = { status: 'sent', sent_at: LATER } as const;
/** A DATEV export that ran to completion (its file may since have been downloaded or deleted). */
const EXPORTED = { record_count: 1250, file_size_bytes: 482133, completed_at: LATER } as const;
/** An e-invoice rule violation, for the types of a failed validation or a rejection. */
const VIOLATION = { code: 'BR-DE-15', message: 'The buyer reference (BT-10) must be provided.' } as const;

export const EventCatalog = {
  'fin.invoice.created': event(Scope.FinInvoicesRead, 'InvoiceDto', 'A draft invoice was created. data: the Invoice.', false),
  'fin.invoice.updated': event(Scope.FinInvoicesRead, 'InvoiceDto', 'A draft invoice was changed. data: the Invoice.', false),
  'fin.invoice.voided': event(Scope.FinInvoicesRead, 'InvoiceDto', 'An issued invoice was voided. data: the Invoice.', false, { ...ISSUED, status: 'void', voided_at: LATER, balance_minor: 0 }),
  'fin.invoice.paid': event(Scope.FinInvoicesRead, 'InvoiceDto', 'A payment settled an invoice in full. data: the Invoice.', false, {
    ...ISSUED,
    status: 'paid',
    paid_minor: INVOICE_TOTAL_MINOR,
    balance_minor: 0,
  }),

  // Fleet. Vehicles name their assigned driver and fuel logs their driver and the place of
  // refuelling: driver and location data, so personal. Work orders name no person.
  'fm.vehicle.created': event(Scope.FmVehiclesRead, 'VehicleDto', 'A vehicle was added to the fleet. data: the Vehicle.', true),
  'fm.vehicle.updated': event(Scope.FmVehiclesRead, 'VehicleDto', 'A vehicle record changed (including its assigned driver). data: the Vehicle.', true),
  'fm.vehicle.deleted': event(Scope.FmVehiclesRead, 'VehicleDto', 'A vehicle was removed from the fleet. data: the Vehicle as last stored.', true),
  'fm.work_order.created': event(Scope.FmWorkOrdersRead, 'WorkOrderDto', 'A work order was opened. data: the Work order.', false),
  'fm.work_order.updated': event(Scope.FmWorkOrdersRead, 'WorkOrderDto', 'A work order changed. data: the Work order.', false),
  'fm.work_order.completed': event(Scope.FmWorkOrdersRead, 'WorkOrderDto', 'A work order was completed. data: the Work order.', false, { status: 'completed', completed_at: LATER }),
  'fm.work_order.deleted': event(Scope.FmWorkOrdersRead, 'WorkOrderDto', 'A work order was deleted. data: the Work order as last stored.', false),
  'fm.fuel_log.created': event(Scope.FmFuelLogsRead, 'FuelLogDto', 'A fuel log was recorded (manual, fuel card, import or detected refuel). data: the Fuel log.', true),
  'fm.fuel_log.updated': event(Scope.FmFuelLogsRead, 'FuelLogDto', 'A fuel log changed. data: the Fuel log.', true),
  'fm.fuel_log.deleted': event(Scope.FmFuelLogsRead, 'FuelLogDto', 'A fuel log was deleted. data: the Fuel log as last stored.', true),

  // HR: every record identifies an employee, so every type is personal.
  'hr.employee.created': event(Scope.HrEmployeesRead, 'EmployeeDto', 'An employee was added. data: the Employee.', true),
  'hr.employee.updated': event(Scope.HrEmployeesRead, 'EmployeeDto', 'An employee record changed. data: the Employee.', true),
  'hr.employee.terminated': event(Scope.HrEmployeesRead, 'EmployeeDto', 'An employment ended (status terminated, end_date set). data: the Employee.', true, {
    employment_status: 'terminated',
    end_date: '2026-06-30',
  }),
  'hr.employee.deleted': event(Scope.HrEmployeesRead, 'EmployeeDto', 'An employee record was deleted. data: the Employee as last stored.', true),
  'hr.leave_request.created': event(Scope.HrLeaveRequestsRead, 'LeaveRequestDto', 'A leave request was submitted. data: the Leave request.', true),
  'hr.leave_request.updated': event(Scope.HrLeaveRequestsRead, 'LeaveRequestDto', 'A leave request changed. data: the Leave request.', true),
  'hr.leave_request.approved': event(Scope.HrLeaveRequestsRead, 'LeaveRequestDto', 'A leave request was approved. data: the Leave request.', true, { status: 'approved', decided_at: LATER }),
  'hr.leave_request.rejected': event(Scope.HrLeaveRequestsRead, 'LeaveRequestDto', 'A leave request was rejected. data: the Leave request.', true, { status: 'rejected', decided_at: LATER }),
  'hr.leave_request.cancelled': event(Scope.HrLeaveRequestsRead, 'LeaveRequestDto', 'A leave request was cancelled. data: the Leave request.', true, { status: 'cancelled' }),
  'hr.timesheet.created': event(Scope.HrTimesheetsRead, 'TimesheetDto', 'A timesheet was started. data: the Timesheet.', true),
  'hr.timesheet.updated': event(Scope.HrTimesheetsRead, 'TimesheetDto', 'A timesheet changed. data: the Timesheet.', true),
  'hr.timesheet.submitted': event(Scope.HrTimesheetsRead, 'TimesheetDto', 'A timesheet was submitted for approval. data: the Timesheet.', true, { status: 'submitted', submitted_at: LATER }),
  'hr.timesheet.approved': event(Scope.HrTimesheetsRead, 'TimesheetDto', 'A timesheet was approved. data: the Timesheet.', true, {
    status: 'approved',
    submitted_at: LATER,
    approved_at: LATER,
  }),
  'hr.timesheet.rejected': event(Scope.HrTimesheetsRead, 'TimesheetDto', 'A timesheet was rejected. data: the Timesheet.', true, { status: 'rejected', submitted_at: LATER }),

  // Support: a ticket carries its requester's name and e-mail address and the assignee.
  'support.ticket.created': event(Scope.SupportTicketsRead, 'TicketDto', 'A ticket was opened. data: the Ticket.', true),
  'support.ticket.updated': event(Scope.SupportTicketsRead, 'TicketDto', 'A ticket changed (status, priority, assignee). data: the Ticket.', true),
  'support.ticket.solved': event(Scope.SupportTicketsRead, 'TicketDto', 'A ticket was solved. data: the Ticket.', true, { status: 'solved', solved_at: LATER }),
  'support.ticket.closed': event(Scope.SupportTicketsRead, 'TicketDto', 'A ticket was closed. data: the Ticket.', true, { status: 'closed', solved_at: LATER }),

  // Documents: metadata only, but the owner may be an employee and file names often carry
  // people's names (contracts, licences), so treated as personal.
  'files.document.created': event(Scope.FilesDocumentsRead, 'DocumentDto', 'A document was uploaded. data: the Document (metadata only).', true),
  'files.document.updated': event(Scope.FilesDocumentsRead, 'DocumentDto', 'A document\'s metadata changed. data: the Document.', true),
  'files.document.deleted': event(Scope.FilesDocumentsRead, 'DocumentDto', 'A document was deleted. data: the Document as last stored.', true),

  'identity.user.created': event(Scope.IdentityUsersRead, 'IdentityUser', 'A user was created. data: the User.', true),
  'identity.user.deactivated': event(Scope.IdentityUsersRead, 'IdentityUser', 'A user was deactivated and can no longer sign in. data: the User.', true, { status: 'deactivated' }),
  'identity.user.reactivated': event(Scope.IdentityUsersRead, 'IdentityUser', 'A user was reactivated. data: the User.', true, { status: 'active' }),

  'messaging.message.sent': event(Scope.MessagingMessagesRead, 'Message', 'A message was sent. data: the Message.', true),
  // Events without a read endpoint (spec 6.2): only int:* keys subscribe. Whistleblowing and
  // pay-transparency records are personal by the spec (6.4); so is whatever names an employee,
  // driver, signer or location. Business documents, exports, audits and devices are not.
  'compliance.whistleblowing_report.received': unlisted('WhistleblowingReport', 'A whistleblowing report was received. data: the report (never the reporter).', true),
  'compliance.whistleblowing_report.acknowledged': unlisted('WhistleblowingReport', 'Receipt of a whistleblowing report was acknowledged to the reporter.', true, { status: 'acknowledged', acknowledged_at: LATER }),
  'compliance.whistleblowing_report.updated': unlisted('WhistleblowingReport', 'A whistleblowing case changed (status, category).', true, { status: 'investigating', acknowledged_at: LATER }),
  'compliance.whistleblowing_report.closed': unlisted('WhistleblowingReport', 'A whistleblowing case was closed with an outcome.', true, { status: 'closed', acknowledged_at: LATER, closed_at: LATEST, outcome: 'substantiated' }),
  'compliance.pay_transparency_request.received': unlisted('PayTransparencyRequest', 'An employee requested pay information.', true),
  'compliance.pay_transparency_request.answered': unlisted('PayTransparencyRequest', 'A pay information request was answered.', true, { status: 'answered', answered_at: LATER }),
  'compliance.pay_transparency_report.published': unlisted('PayTransparencyReport', 'A gender pay gap report was published.', true),
  'compliance.training.assigned': unlisted('ComplianceTraining', 'A compliance training was assigned to an employee.', true),
  'compliance.training.completed': unlisted('ComplianceTraining', 'An employee completed a compliance training.', true, { status: 'completed', completed_at: LATER }),
  'compliance.training.overdue': unlisted('ComplianceTraining', 'A compliance training passed its due date uncompleted.', true, { status: 'overdue' }),
  'compliance.policy.published': unlisted('CompliancePolicy', 'A policy version was published.', false),
  'compliance.policy.acknowledged': unlisted('PolicyAcknowledgement', 'An employee acknowledged a policy version.', true),
  'compliance.incident.reported': unlisted('ComplianceIncident', 'A compliance incident was reported.', true),
  'compliance.incident.updated': unlisted('ComplianceIncident', 'A compliance incident changed.', true, { status: 'investigating' }),
  'compliance.incident.resolved': unlisted('ComplianceIncident', 'A compliance incident was resolved.', true, { status: 'resolved', resolved_at: LATER }),
  'compliance.audit.scheduled': unlisted('ComplianceAudit', 'An audit was scheduled.', false),
  'compliance.audit.completed': unlisted('ComplianceAudit', 'An audit was completed.', false, { status: 'completed', completed_at: LATER, findings_count: 2 }),
  'compliance.data_subject_request.received': unlisted('DataSubjectRequest', 'A GDPR data subject request was received.', true),
  'compliance.data_subject_request.completed': unlisted('DataSubjectRequest', 'A GDPR data subject request was completed or rejected.', true, { status: 'completed', completed_at: LATER }),
  'compliance.certification.expiring': unlisted('ComplianceCertification', 'A certification expires within 90 days.', false),

  'einvoice.document.created': unlisted('EInvoice', 'An e-invoice document was generated for an invoice.', false),
  'einvoice.document.validated': unlisted('EInvoice', 'An e-invoice passed EN 16931 and CIUS validation.', false, { status: 'valid', status_changed_at: LATER }),
  'einvoice.document.validation_failed': unlisted('EInvoice', 'An e-invoice failed validation; see validation_errors.', false, { status: 'invalid', validation_errors: [VIOLATION], status_changed_at: LATER }),
  'einvoice.document.sent': unlisted('EInvoice', 'An e-invoice was sent over its network.', false, { status: 'sent', status_changed_at: LATER }),
  'einvoice.document.delivered': unlisted('EInvoice', 'The network confirmed delivery of an e-invoice.', false, { status: 'delivered', status_changed_at: LATER }),
  'einvoice.document.accepted': unlisted('EInvoice', 'The receiver accepted an e-invoice.', false, { status: 'accepted', status_changed_at: LATER }),
  'einvoice.document.rejected': unlisted('EInvoice', 'The receiver rejected an e-invoice.', false, { status: 'rejected', validation_errors: [VIOLATION], status_changed_at: LATER }),
  'einvoice.document.received': unlisted('EInvoice', 'An inbound e-invoice arrived from a supplier.', false, { status: 'received', direction: 'inbound', invoice_id: null, status_changed_at: LATER }),
  'einvoice.document.cancelled': unlisted('EInvoice', 'An e-invoice was cancelled before delivery.', false, { status: 'cancelled', status_changed_at: LATER }),
  'einvoice.document.archived': unlisted('EInvoice', 'An e-invoice was moved to the tamper-proof archive.', false, { status: 'archived', status_changed_at: LATER }),

  'datev.export.requested': unlisted('DatevExport', 'A DATEV export was requested.', false),
  'datev.export.started': unlisted('DatevExport', 'A DATEV export started running.', false, { status: 'running' }),
  'datev.export.completed': unlisted('DatevExport', 'A DATEV export finished and can be downloaded.', false, { status: 'completed', ...EXPORTED }),
  'datev.export.failed': unlisted('DatevExport', 'A DATEV export failed; see failure_reason.', false, { status: 'failed', failure_reason: 'The DATEV consultant number is not known to DATEV.' }),
  'datev.export.downloaded': unlisted('DatevExport', 'A DATEV export file was downloaded.', false, { status: 'completed', ...EXPORTED }),
  'datev.export.cancelled': unlisted('DatevExport', 'A DATEV export was cancelled.', false, { status: 'cancelled' }),
  'datev.export.deleted': unlisted('DatevExport', 'A DATEV export file was deleted.', false, { status: 'deleted', ...EXPORTED }),

  'tachograph.driver_card.downloaded': unlisted('TachographFile', 'A driver card was downloaded.', true, { source: 'driver_card', vehicle_id: null }),
  'tachograph.vehicle_unit.downloaded': unlisted('TachographFile', 'A vehicle unit was downloaded.', true, { source: 'vehicle_unit', driver_id: null, file_name: 'M_20260516_1200_WOB-K-123_WVWZZZ1KZ9W000001.DDD' }),
  'tachograph.file.processed': unlisted('TachographFile', 'A tachograph file was processed into activities.', true, { status: 'processed', vehicle_id: null, activity_start_at: '2026-04-18T04:12:00.000Z', activity_end_at: '2026-05-16T11:47:00.000Z' }),
  'tachograph.file.failed': unlisted('TachographFile', 'A tachograph file could not be processed.', true, { status: 'failed', vehicle_id: null, failure_reason: 'The file signature did not verify.' }),
  'tachograph.download.overdue': unlisted('TachographDownloadDue', 'A legally required download is overdue.', true),
  'tachograph.infringement.detected': unlisted('TachographInfringement', 'A driving or rest time infringement was found.', true),
  'tachograph.driving_time.warning': unlisted('DrivingTimeWarning', 'A driver approaches a driving time limit.', true),
  'tachograph.driver_card.expiring': unlisted('TachographCard', 'A driver card expires within 60 days.', true, { type: 'driver' }),
  'tachograph.company_card.expiring': unlisted('TachographCard', 'A company card expires within 60 days.', false, { type: 'company', holder_driver_id: null }),

  'dashcam.event.recorded': unlisted('DashcamEvent', 'A dashcam recorded a driving event (harsh braking, speeding, …).', true),
  'dashcam.collision.detected': unlisted('DashcamEvent', 'A dashcam detected a collision.', true, { type: 'collision', severity: 'high' }),
  'dashcam.driver_distraction.detected': unlisted('DashcamEvent', 'A driver-facing camera detected distraction, drowsiness or phone use.', true, { type: 'distraction' }),
  'dashcam.video.requested': unlisted('DashcamVideo', 'A video clip was requested from a dashcam.', true),
  'dashcam.video.uploaded': unlisted('DashcamVideo', 'A video clip was uploaded.', true, { status: 'uploaded', size_bytes: 18874368, uploaded_at: LATER }),
  'dashcam.video.deleted': unlisted('DashcamVideo', 'A video clip was deleted (retention or by request).', true, { status: 'deleted', size_bytes: 18874368, uploaded_at: LATER, deleted_at: LATEST }),
  'dashcam.device.online': unlisted('DashcamDevice', 'A dashcam came online.', false),
  'dashcam.device.offline': unlisted('DashcamDevice', 'A dashcam went offline.', false, { status: 'offline' }),
  'dashcam.device.tampered': unlisted('DashcamDevice', 'A dashcam reported tampering (unplugged, covered lens).', false, { status: 'tampered' }),

  'esign.envelope.created': unlisted('SignatureEnvelope', 'Documents were prepared for signature.', true, { signers: [signer('pending')] }),
  'esign.envelope.sent': unlisted('SignatureEnvelope', 'An envelope was sent to its signers.', true, { ...SENT, signers: [signer('pending')] }),
  'esign.envelope.viewed': unlisted('SignatureEnvelope', 'A signer opened an envelope.', true, { ...SENT, signers: [signer('viewed')] }),
  'esign.envelope.signed': unlisted('SignatureEnvelope', 'A signer signed; others may still be pending.', true, { ...SENT, signers: [signer('signed'), signer('pending', 'second')] }),
  'esign.envelope.completed': unlisted('SignatureEnvelope', 'Every signer signed.', true, { status: 'completed', sent_at: LATER, completed_at: LATEST, signers: [signer('signed'), signer('signed', 'second')] }),
  'esign.envelope.declined': unlisted('SignatureEnvelope', 'A signer declined to sign.', true, { status: 'declined', sent_at: LATER, signers: [signer('declined')] }),
  'esign.envelope.voided': unlisted('SignatureEnvelope', 'The sender withdrew an envelope.', true, { status: 'voided', sent_at: LATER, signers: [signer('pending')] }),
  'esign.envelope.expired': unlisted('SignatureEnvelope', 'An envelope expired before every signer signed.', true, { status: 'expired', sent_at: LATER, signers: [signer('pending')] }),
  'esign.envelope.reminder_sent': unlisted('SignatureEnvelope', 'Pending signers were reminded.', true, { ...SENT, signers: [signer('viewed'), signer('pending', 'second')] }),
} as const satisfies Record<string, EventDefinition>;

export type EventType = keyof typeof EventCatalog;

/**
 * The response DTOs that events carry, by class name. Each feature declares its own next to the
 * resource (`declare module` of this file), so that the platform's catalogue types their events
 * without importing a feature.
 */
export interface EventDataModels {}

/** The `data` of an event of type T, as its catalogue entry's schema describes it. */
export type EventData<T extends EventType> = DataOfComponent<(typeof EventCatalog)[T]['data']>;

type DataOfComponent<N> = N extends EventDataSchemaName ? EventDataSchemaData<N> : N extends keyof EventDataModels ? EventDataModels[N] : never;

export const EVENT_TYPES = Object.keys(EventCatalog) as EventType[];

export function isEventType(value: string): value is EventType {
  return Object.hasOwn(EventCatalog, value);
}
