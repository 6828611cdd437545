<?php

// The library loads as a plugin that copies the folder loads it; the tests' helpers beside it.
require dirname(__DIR__) . '/loader.php';

spl_autoload_register(static function (string $class): void {
    $prefix = 'Licensing\\Tests\\';
    if (strncmp($class, $prefix, strlen($prefix)) === 0) {
        $file = __DIR__ . '/' . str_replace('\\', '/', substr($class, strlen($prefix))) . '.php';
        if (is_file($file)) {
            require $file;
        }
    }
});
