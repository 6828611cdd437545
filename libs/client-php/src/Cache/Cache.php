<?php

namespace Licensing\Cache;

/**
 * A small store of strings by name: where the client keeps the last verified validation (the
 * offline grace) and the latest time the server vouched for (clock-tamper detection). One that
 * throws counts as empty: it never fails a call.
 */
interface Cache
{
    public function get(string $key): ?string;

    public function set(string $key, string $value): void;
}
