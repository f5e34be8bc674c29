import { Module } from '@nestjs/common';
import { SecretsCipher } from './secrets-cipher.js';

/** Encryption at rest under SECRETS_KEY. */
@Module({ providers: [SecretsCipher], exports: [SecretsCipher] })
export class CryptoModule {}
