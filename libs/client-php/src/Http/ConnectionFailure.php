<?php

namespace Licensing\Http;

use Licensing\LicensingException;

/** The `CONNECTION_ERROR` every transport throws, worded as the TypeScript client words it. */
final class ConnectionFailure
{
    public static function timedOut(float $timeout, ?\Throwable $previous = null): LicensingException
    {
        return self::because('no answer from the server within ' . self::seconds($timeout), $previous);
    }

    public static function because(string $detail, ?\Throwable $previous = null): LicensingException
    {
        $detail = rtrim(trim($detail), '.');
        if ($detail === '') {
            $detail = 'the request failed';
        }
        return new LicensingException(
            LicensingException::CONNECTION_ERROR,
            'Connection error: ' . $detail . '.',
            0,
            null,
            [],
            $previous
        );
    }

    private static function seconds(float $timeout): string
    {
        $text = rtrim(rtrim(sprintf('%.3F', $timeout), '0'), '.');
        return $text . ($text === '1' ? ' second' : ' seconds');
    }
}
