import { Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import type { DemoSeedContext, DemoSeeder } from '../platform/demo/demo-seeder.js';
import { demoShift, demoTimeline } from '../platform/demo/demo-timeline.js';
import { type InsertRow, insertRows } from '../platform/demo/insert-rows.js';
import { Document, DOCUMENT_OWNER_TYPES, type DocumentOwnerType } from './document.entity.js';

/** Typical attachments per kind of record; `#` becomes a number. */
const FILES: Record<DocumentOwnerType, readonly string[]> = {
  vehicle: ['registration-certificate.pdf', 'insurance-policy.pdf', 'lease-contract.pdf', 'photo-front.jpg', 'photo-interior.jpg'],
  work_order: ['workshop-invoice-#.pdf', 'damage-photo-#.jpg', 'cost-estimate.pdf'],
  fuel_log: ['receipt-#.jpg', 'receipt-#.pdf'],
  employee: ['employment-contract.pdf', 'drivers-licence-scan.pdf', 'training-certificate.pdf', 'id-check.png'],
  leave_request: ['medical-certificate.pdf'],
  timesheet: ['timesheet-week-#.xlsx', 'timesheet-week-#.csv'],
  ticket: ['screenshot-#.png', 'error-log.txt', 'export-#.csv'],
  invoice: ['invoice-#.pdf', 'delivery-note-#.pdf'],
  payment: ['remittance-advice-#.pdf'],
  bill: ['supplier-invoice-#.pdf'],
  purchase_order: ['purchase-order-#.pdf', 'quote-#.docx'],
};

/** Media type and plausible size range in bytes, by extension. */
const TYPES: Record<string, { mime: string; size: [number, number] }> = {
  pdf: { mime: 'application/pdf', size: [40_000, 4_000_000] },
  jpg: { mime: 'image/jpeg', size: [150_000, 6_000_000] },
  png: { mime: 'image/png', size: [40_000, 2_500_000] },
  xlsx: { mime: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet', size: [8_000, 400_000] },
  docx: { mime: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document', size: [12_000, 600_000] },
  csv: { mime: 'text/csv', size: [500, 250_000] },
  txt: { mime: 'text/plain', size: [200, 120_000] },
};

/**
 * Document metadata attached to the records earlier seeders created (their `<owner>_ids`), so
 * it must run after them; finance ids are used once the finance seeder returns them.
 */
@Injectable()
export class DocumentsDemoSeeder implements DemoSeeder {
  async seed({ data, records, faker, ids = {} }: DemoSeedContext): Promise<Record<string, string[]>> {
    const now = new Date();
    const owners = DOCUMENT_OWNER_TYPES.filter((type) => (ids[`${type}_ids`] ?? []).length > 0);
    if (owners.length === 0 && records > 0) throw new Error('documents need records to attach to: list the documents seeder after the others');

    const documents = demoTimeline(faker, records, { days: 365, end: now }).map((createdAt) => {
      const ownerType = faker.helpers.arrayElement(owners);
      const fileName = faker.helpers.arrayElement(FILES[ownerType]).replace('#', String(faker.number.int({ min: 1, max: 9999 })));
      const type = TYPES[fileName.slice(fileName.lastIndexOf('.') + 1)];
      return {
        id: randomUUID(),
        fileName,
        mimeType: type.mime,
        sizeBytes: faker.number.int({ min: type.size[0], max: type.size[1] }),
        checksumSha256: faker.string.hexadecimal({ length: 64, casing: 'lower', prefix: '' }),
        ownerType,
        ownerId: faker.helpers.arrayElement(ids[`${ownerType}_ids`]),
        // The record is written once the upload has completed.
        uploadedAt: demoShift(createdAt, -faker.number.int({ min: 0, max: 3 }), now),
        createdAt,
        updatedAt: faker.datatype.boolean(0.85) ? createdAt : demoShift(createdAt, faker.number.int({ min: 5, max: 60 * 24 * 30 }), now),
      } satisfies InsertRow<Document>;
    });

    await insertRows(data, Document, documents);
    return { document_ids: documents.map((document) => document.id) };
  }
}
