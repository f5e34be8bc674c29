import { Scope } from './scopes.js';

/**
 * The event catalogue (spec section 6): every event type with the scope a key needs to
 * subscribe to it and whether it carries personal data (delivered only to endpoints that
 * support enabled for personal data). `scope: Scope.All` marks events without a read endpoint.
 */
export interface EventDefinition {
  readonly scope: Scope;
  readonly personalData: boolean;
  readonly description: string;
}

const event = (scope: Scope, description: string, personalData = false): EventDefinition => ({ scope, personalData, description });

export const EventCatalog = {
  'fin.invoice.created': event(Scope.FinInvoicesRead, 'A draft invoice was created.'),
  'fin.invoice.updated': event(Scope.FinInvoicesRead, 'A draft invoice was changed.'),
  'fin.invoice.voided': event(Scope.FinInvoicesRead, 'An issued invoice was voided.'),
  'fin.invoice.paid': event(Scope.FinInvoicesRead, 'A payment settled an invoice in full.'),

  // Fleet. Vehicles name their assigned driver and fuel logs their driver and the place of
  // refuelling: driver and location data, so personal. Work orders name no person.
  'fm.vehicle.created': event(Scope.FmVehiclesRead, 'A vehicle was added to the fleet. data: the Vehicle.', true),
  'fm.vehicle.updated': event(Scope.FmVehiclesRead, 'A vehicle record changed (including its assigned driver). data: the Vehicle.', true),
  'fm.vehicle.deleted': event(Scope.FmVehiclesRead, 'A vehicle was removed from the fleet. data: the Vehicle as last stored.', true),
  'fm.work_order.created': event(Scope.FmWorkOrdersRead, 'A work order was opened. data: the Work order.'),
  'fm.work_order.updated': event(Scope.FmWorkOrdersRead, 'A work order changed. data: the Work order.'),
  'fm.work_order.completed': event(Scope.FmWorkOrdersRead, 'A work order was completed. data: the Work order.'),
  'fm.work_order.deleted': event(Scope.FmWorkOrdersRead, 'A work order was deleted. data: the Work order as last stored.'),
  'fm.fuel_log.created': event(Scope.FmFuelLogsRead, 'A fuel log was recorded (manual, fuel card, import or detected refuel). data: the Fuel log.', true),
  'fm.fuel_log.updated': event(Scope.FmFuelLogsRead, 'A fuel log changed. data: the Fuel log.', true),
  'fm.fuel_log.deleted': event(Scope.FmFuelLogsRead, 'A fuel log was deleted. data: the Fuel log as last stored.', true),

  // HR: every record identifies an employee, so every type is personal.
  'hr.employee.created': event(Scope.HrEmployeesRead, 'An employee was added. data: the Employee.', true),
  'hr.employee.updated': event(Scope.HrEmployeesRead, 'An employee record changed. data: the Employee.', true),
  'hr.employee.terminated': event(Scope.HrEmployeesRead, 'An employment ended (status terminated, end_date set). data: the Employee.', true),
  'hr.employee.deleted': event(Scope.HrEmployeesRead, 'An employee record was deleted. data: the Employee as last stored.', true),
  'hr.leave_request.created': event(Scope.HrLeaveRequestsRead, 'A leave request was submitted. data: the Leave request.', true),
  'hr.leave_request.updated': event(Scope.HrLeaveRequestsRead, 'A leave request changed. data: the Leave request.', true),
  'hr.leave_request.approved': event(Scope.HrLeaveRequestsRead, 'A leave request was approved. data: the Leave request.', true),
  'hr.leave_request.rejected': event(Scope.HrLeaveRequestsRead, 'A leave request was rejected. data: the Leave request.', true),
  'hr.leave_request.cancelled': event(Scope.HrLeaveRequestsRead, 'A leave request was cancelled. data: the Leave request.', true),
  'hr.timesheet.created': event(Scope.HrTimesheetsRead, 'A timesheet was started. data: the Timesheet.', true),
  'hr.timesheet.updated': event(Scope.HrTimesheetsRead, 'A timesheet changed. data: the Timesheet.', true),
  'hr.timesheet.submitted': event(Scope.HrTimesheetsRead, 'A timesheet was submitted for approval. data: the Timesheet.', true),
  'hr.timesheet.approved': event(Scope.HrTimesheetsRead, 'A timesheet was approved. data: the Timesheet.', true),
  'hr.timesheet.rejected': event(Scope.HrTimesheetsRead, 'A timesheet was rejected. data: the Timesheet.', true),

  // Support: a ticket carries its requester's name and e-mail address and the assignee.
  'support.ticket.created': event(Scope.SupportTicketsRead, 'A ticket was opened. data: the Ticket.', true),
  'support.ticket.updated': event(Scope.SupportTicketsRead, 'A ticket changed (status, priority, assignee). data: the Ticket.', true),
  'support.ticket.solved': event(Scope.SupportTicketsRead, 'A ticket was solved. data: the Ticket.', true),
  'support.ticket.closed': event(Scope.SupportTicketsRead, 'A ticket was closed. data: the Ticket.', true),

  // Documents: metadata only, but the owner may be an employee and file names often carry
  // people's names (contracts, licences), so treated as personal.
  'files.document.created': event(Scope.FilesDocumentsRead, 'A document was uploaded. data: the Document (metadata only).', true),
  'files.document.updated': event(Scope.FilesDocumentsRead, 'A document\'s metadata changed. data: the Document.', true),
  'files.document.deleted': event(Scope.FilesDocumentsRead, 'A document was deleted. data: the Document as last stored.', true),

  'identity.user.created': event(Scope.IdentityUsersRead, 'A user was created.', true),
  'identity.user.deactivated': event(Scope.IdentityUsersRead, 'A user was deactivated.', true),
  'identity.user.reactivated': event(Scope.IdentityUsersRead, 'A user was reactivated.', true),

  'messaging.message.sent': event(Scope.MessagingMessagesRead, 'A message was sent.', true),
} as const satisfies Record<string, EventDefinition>;

export type EventType = keyof typeof EventCatalog;

export const EVENT_TYPES = Object.keys(EventCatalog) as EventType[];

export function isEventType(value: string): value is EventType {
  return Object.hasOwn(EventCatalog, value);
}
