import { Module } from '@nestjs/common';
import { SealedSecrets } from './sealed-secrets.js';
import { SecretsCipher } from './secrets-cipher.js';

/** Encryption at rest under SECRETS_KEY, and the re-sealing of what was sealed under another key. */
@Module({ providers: [SecretsCipher, SealedSecrets], exports: [SecretsCipher, SealedSecrets] })
export class CryptoModule {}
