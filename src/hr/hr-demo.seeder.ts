import { Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import type { DemoSeedContext, DemoSeeder } from '../platform/demo/demo-seeder.js';
import { demoDate, demoShift, demoTimeline } from '../platform/demo/demo-timeline.js';
import { type InsertRow, insertRows } from '../platform/demo/insert-rows.js';
import { Employee, type EmploymentType } from './employee.entity.js';
import { LeaveRequest, type LeaveType } from './leave-request.entity.js';
import { Timesheet } from './timesheet.entity.js';

const DEPARTMENTS: Record<string, readonly string[]> = {
  Operations: ['Operations Manager', 'Dispatcher', 'Driver', 'Senior Driver', 'Driver'],
  Fleet: ['Fleet Manager', 'Fleet Coordinator', 'Mechanic', 'Driver'],
  Finance: ['Accountant', 'Accounts Payable Clerk', 'Financial Controller'],
  Sales: ['Account Executive', 'Sales Manager', 'Inside Sales Representative'],
  'Customer Support': ['Support Agent', 'Support Agent', 'Support Team Lead'],
  'People & Culture': ['HR Generalist', 'Recruiter', 'Payroll Specialist'],
  IT: ['IT Administrator', 'Software Engineer'],
  Warehouse: ['Warehouse Operative', 'Forklift Operator', 'Warehouse Supervisor'],
};

/** Day of week of a `YYYY-MM-DD` date, 0 = Sunday. */
const weekday = (date: string) => new Date(`${date}T00:00:00Z`).getUTCDay();
const isWorkday = (date: string) => weekday(date) !== 0 && weekday(date) !== 6;

/** The first working day on or after `date`. */
function workdayFrom(date: string): string {
  let day = date;
  while (!isWorkday(day)) day = demoDate(`${day}T00:00:00Z`, 1);
  return day;
}

/** The working day `count` working days after `date` (a working day itself). */
function addWorkdays(date: string, count: number): string {
  let day = date;
  for (let left = count; left > 0; ) {
    day = demoDate(`${day}T00:00:00Z`, 1);
    if (isWorkday(day)) left -= 1;
  }
  return day;
}

/** ASCII letters of a name, for an e-mail address. */
const mailbox = (name: string) =>
  name
    .normalize('NFKD')
    .toLowerCase()
    .replace(/[^a-z]/g, '');

type EmployeeRow = InsertRow<Employee> & {
  id: string;
  startDate: string;
  endDate: string | null;
  employmentType: EmploymentType;
  managerId: string | null;
  createdAt: string;
};

/** Employees (with managers), their leave requests and weekly timesheets. */
@Injectable()
export class HrDemoSeeder implements DemoSeeder {
  async seed({ data, records, faker }: DemoSeedContext): Promise<Record<string, string[]>> {
    const now = new Date();
    const today = demoDate(now);
    const pick = <T>(weights: Record<string, number>) =>
      faker.helpers.weightedArrayElement(Object.entries(weights).map(([value, weight]) => ({ value, weight }))) as T;
    const quarters = (min: number, max: number) => faker.number.int({ min: min * 4, max: max * 4 }) / 4;

    const [{ count: existing }] = await data.query<{ count: number }>(`SELECT count(*)::int AS count FROM employees WHERE tenant_id = $1`);
    const domain = `${faker.internet.domainWord()}.example`;
    const emails = new Set<string>();
    const managerCount = Math.max(1, Math.ceil(records / 8));
    const employees: EmployeeRow[] = [];
    for (const [index, createdAt] of demoTimeline(faker, records, { days: 3 * 365, end: now }).entries()) {
      const number = `E-${String(existing + index + 1).padStart(5, '0')}`;
      const firstName = faker.person.firstName();
      const lastName = faker.person.lastName();
      let workEmail = `${mailbox(firstName)}.${mailbox(lastName)}@${domain}`;
      if (emails.has(workEmail)) workEmail = workEmail.replace('@', `.${number.slice(2)}@`);
      emails.add(workEmail);
      const department = faker.helpers.objectKey(DEPARTMENTS);
      const startDate = demoDate(createdAt, faker.number.int({ min: 0, max: 30 }));
      const started = startDate <= today;
      const employmentStatus = started ? pick<Employee['employmentStatus']>({ active: 16, on_leave: 2, terminated: 2 }) : 'active';
      const lastDay = demoDate(`${startDate}T00:00:00Z`, faker.number.int({ min: 60, max: 900 }));
      const endDate = employmentStatus === 'terminated' ? (lastDay < today ? lastDay : today) : null;
      const employmentType = pick<EmploymentType>({ full_time: 14, part_time: 4, contractor: 2, temporary: 2, intern: 1 });
      employees.push({
        id: randomUUID(),
        employeeNumber: number,
        firstName,
        lastName,
        workEmail,
        jobTitle: faker.helpers.arrayElement(DEPARTMENTS[department]),
        department,
        employmentType,
        employmentStatus,
        startDate,
        // A fixed-term contract still running knows its last day.
        endDate: endDate ?? (employmentType === 'temporary' && lastDay > today ? lastDay : null),
        // The oldest records are the managers; everyone else reports to an earlier one.
        managerId: index === 0 ? null : employees[faker.number.int({ min: 0, max: Math.min(index, managerCount) - 1 })].id,
        createdAt,
        updatedAt: faker.datatype.boolean(0.4) ? createdAt : demoShift(createdAt, faker.number.int({ min: 10, max: 60 * 24 * 180 }), now),
      });
    }
    const employedOn = (employee: EmployeeRow, date: string) => employee.startDate <= date && (employee.endDate === null || employee.endDate >= date);
    // Who is employed on a day, once per day: a filter per record made 10,000 records quadratic.
    const employedByDay = new Map<string, EmployeeRow[]>();
    const employedOnDay = (date: string): EmployeeRow[] => {
      let found = employedByDay.get(date);
      if (!found) employedByDay.set(date, (found = employees.filter((employee) => employedOn(employee, date))));
      return found;
    };

    const leaveRequests = demoTimeline(faker, records, { days: 365, end: now }).map((createdAt) => {
      const requestable = employedOnDay(demoDate(createdAt));
      const employee = faker.helpers.arrayElement(requestable.length > 0 ? requestable : employees);
      const type = pick<LeaveType>({ annual: 12, sick: 6, parental: 1, unpaid: 1, other: 1 });
      // Sick leave is reported on or after its first day; other leave is asked for ahead.
      const lead = type === 'sick' ? -faker.number.int({ min: 0, max: 3 }) : faker.number.int({ min: 3, max: 90 });
      const startDate = workdayFrom(demoDate(createdAt, lead));
      const workdays = type === 'parental' ? faker.number.int({ min: 20, max: 60 }) : faker.number.int({ min: 1, max: type === 'sick' ? 5 : 10 });
      const status =
        type === 'sick'
          ? pick<LeaveRequest['status']>({ approved: 9, pending: 1 })
          : startDate > today
            ? pick<LeaveRequest['status']>({ pending: 3, approved: 5, rejected: 1, cancelled: 1 })
            : pick<LeaveRequest['status']>({ approved: 8, rejected: 1, cancelled: 1 });
      const decided = status === 'approved' || status === 'rejected' || (status === 'cancelled' && faker.datatype.boolean(0.5));
      const decidedAt = decided ? demoShift(createdAt, faker.number.int({ min: 30, max: 60 * 24 * 5 }), now) : null;
      return {
        id: randomUUID(),
        employeeId: employee.id,
        type,
        status,
        startDate,
        endDate: addWorkdays(startDate, workdays - 1),
        days: workdays === 1 && type !== 'sick' && faker.datatype.boolean(0.25) ? 0.5 : workdays,
        approverId: decided ? employee.managerId : null,
        decidedAt,
        createdAt,
        updatedAt: decidedAt ?? createdAt,
      } satisfies InsertRow<LeaveRequest>;
    });

    // One timesheet per employee and week: the week is the one the sheet was started in. Per
    // week, the employees employed at its start without a sheet yet, in employee order.
    const taken = new Set<string>();
    const freeByWeek = new Map<string, EmployeeRow[]>();
    const timesheets = demoTimeline(faker, records, { days: 365, end: now }).map((createdAt) => {
      const created = new Date(createdAt);
      const periodStartDate = demoDate(created, -((created.getUTCDay() + 6) % 7));
      const periodEndDate = demoDate(`${periodStartDate}T00:00:00Z`, 6);
      const free = (employee: EmployeeRow) => !taken.has(`${employee.id}|${periodStartDate}`);
      let candidates = freeByWeek.get(periodStartDate);
      if (!candidates) freeByWeek.set(periodStartDate, (candidates = employees.filter((employee) => employedOn(employee, periodStartDate))));
      const employee = faker.helpers.arrayElement(candidates.length > 0 ? candidates : employees.filter(free));
      taken.add(`${employee.id}|${periodStartDate}`);
      const index = candidates.indexOf(employee);
      if (index >= 0) candidates.splice(index, 1);

      const closed = periodEndDate < today;
      const status = closed ? pick<Timesheet['status']>({ approved: 7, submitted: 2, rejected: 1 }) : 'draft';
      const contract = employee.employmentType === 'part_time' ? quarters(16, 30) : faker.helpers.arrayElement([38.5, 40, 40, 40]);
      // Submitted at the end of the week (or right after a sheet started late), approved after.
      const weekEnd = `${periodEndDate}T15:00:00.000000Z`;
      const submittedAt = status === 'draft' ? null : demoShift(weekEnd > createdAt ? weekEnd : createdAt, faker.number.int({ min: 1, max: 60 * 48 }), now);
      const approvedAt = status === 'approved' && submittedAt ? demoShift(submittedAt.toISOString(), faker.number.int({ min: 60, max: 60 * 72 }), now) : null;
      return {
        id: randomUUID(),
        employeeId: employee.id,
        periodStartDate,
        periodEndDate,
        // A draft of the running week holds the hours booked so far.
        regularHours: closed ? contract : quarters(0, contract),
        overtimeHours: faker.datatype.boolean(0.3) ? quarters(0.25, 8) : 0,
        status,
        submittedAt,
        approvedAt,
        createdAt,
        updatedAt: approvedAt ?? submittedAt ?? createdAt,
      } satisfies InsertRow<Timesheet>;
    });

    await insertRows(data, Employee, employees);
    await insertRows(data, LeaveRequest, leaveRequests);
    await insertRows(data, Timesheet, timesheets);
    return {
      employee_ids: employees.map((employee) => employee.id),
      leave_request_ids: leaveRequests.map((request) => request.id),
      timesheet_ids: timesheets.map((sheet) => sheet.id),
    };
  }
}
