import { Column, Entity } from 'typeorm';
import { numericColumn } from '../platform/resources/representation.js';
import { TenantOwnedEntity } from '../platform/resources/tenant-owned.entity.js';

/** The kinds of record a document can be attached to, named like the resources' items. */
export const DOCUMENT_OWNER_TYPES = [
  'vehicle',
  'work_order',
  'fuel_log',
  'employee',
  'leave_request',
  'timesheet',
  'ticket',
  'invoice',
  'payment',
  'bill',
  'purchase_order',
] as const;
export type DocumentOwnerType = (typeof DOCUMENT_OWNER_TYPES)[number];

/** Metadata of a stored file. The file's contents live elsewhere and never pass through here. */
@Entity('documents')
export class Document extends TenantOwnedEntity {
  @Column({ type: 'text' })
  fileName: string;

  @Column({ type: 'text' })
  mimeType: string;

  @Column({ type: 'bigint', transformer: numericColumn })
  sizeBytes: number;

  @Column({ type: 'text' })
  checksumSha256: string;

  @Column({ type: 'text' })
  ownerType: DocumentOwnerType;

  @Column({ type: 'uuid' })
  ownerId: string;

  @Column({ type: 'timestamptz' })
  uploadedAt: Date;
}
