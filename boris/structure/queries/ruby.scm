; Definitions in Ruby. A def in a class or module is a method (the code makes it one,
; from its nesting); def self.x is one wherever it is.

(class name: (_) @name) @definition.class

(module name: (_) @name) @definition.module

(method name: (_) @name) @definition.function

(singleton_method name: (_) @name) @definition.method

(assignment left: (constant) @name) @definition.constant
