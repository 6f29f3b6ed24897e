import { MemoryStorage } from '../../../src/core/session/memory-storage';
import { storeContract } from './store-contract';

storeContract({ name: 'memory', make: () => Promise.resolve(new MemoryStorage()) });
