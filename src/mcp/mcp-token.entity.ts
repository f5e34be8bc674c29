import { Column, CreateDateColumn, Entity, PrimaryGeneratedColumn, UpdateDateColumn } from 'typeorm';

/** An agent-tool server token of one person: its public prefix and the SHA-256 of its secret. */
@Entity('mcp_tokens')
export class McpToken {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Column({ type: 'uuid' })
  tenantId: string;

  /** The person the token acts for; their permissions are checked on every tool call. */
  @Column({ type: 'uuid' })
  userId: string;

  @Column({ type: 'text' })
  prefix: string;

  @Column({ type: 'bytea', select: false })
  secretHash: Buffer;

  /** Tool names the token may call, or `['*']` for all. */
  @Column({ type: 'text', array: true })
  tools: string[];

  @Column({ type: 'timestamptz', nullable: true })
  lastUsedAt: Date | null;

  @Column({ type: 'timestamptz', nullable: true })
  revokedAt: Date | null;

  @CreateDateColumn({ type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ type: 'timestamptz' })
  updatedAt: Date;
}
