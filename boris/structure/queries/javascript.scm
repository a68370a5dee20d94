; Definitions in JavaScript (TypeScript and TSX add theirs to these).

(class_declaration name: (_) @name) @definition.class

; A class expression with a name of its own, wherever it stands:
; module.exports = class FixedQueue {…} (its methods nest under it).
(class name: (_) @name) @definition.class

; A class or function without a name, exported as the default: named "default".
(export_statement "default" @name value: (class !name)) @definition.class

(export_statement
  "default" @name
  value: [(function_expression !name) (arrow_function) (generator_function !name)]
  ) @definition.function

; A class or function bound to a name by a declaration, at any depth:
; const Widget = class {…}, const f = () => …
(variable_declarator
  name: (identifier) @name
  value: (class !name)) @definition.class

(function_declaration name: (identifier) @name) @definition.function

(generator_function_declaration name: (identifier) @name) @definition.function

(method_definition name: (_) @name) @definition.method

; A function bound by assignment to a member: View.prototype.render = function …,
; exports.json = function …, res.redirect = () => …. What qualifies it is the object
; assigned to, less prototype, this and exports (boris.structure.definitions). A
; function module.exports is set to is named by its own name, if it has one; a class
; without a name is module.exports.
(assignment_expression
  left: (member_expression
    object: [(identifier) (this) (member_expression)] @qualifier
    property: (property_identifier) @name)
  right: [(arrow_function) (function_expression) (generator_function)]
  (#not-eq? @name "exports")) @definition.function

(assignment_expression
  left: (member_expression
    object: [(identifier) (this) (member_expression)] @qualifier
    property: (property_identifier) @name)
  right: (class !name)) @definition.class

(assignment_expression
  left: (member_expression property: (property_identifier) @_exports)
  right: (function_expression name: (identifier) @name) @definition.function
  (#eq? @_exports "exports"))

; A named function expression passed as an argument (app.use(function logger() {…})),
; returned (return function dispatch (opts) {…}), given as a property's value
; ({ get: function getrouter () {…} }) or assigned to a variable
; (wrapper = function onMessage (data) {…}): named by its own name.
(arguments (function_expression name: (identifier) @name) @definition.function)

(return_statement (function_expression name: (identifier) @name) @definition.function)

(pair value: (function_expression name: (identifier) @name) @definition.function)

(assignment_expression
  left: (identifier)
  right: (function_expression name: (identifier) @name) @definition.function)

; A function given a name by a declaration, at any depth: const f = () => {}. (Before
; the top-level bindings below: of two patterns that name one name, the first wins.)
(variable_declarator
  name: (identifier) @name
  value: [(arrow_function) (function_expression) (generator_function)]) @definition.function

; Other top-level bindings: const is a constant, let and var are variables.
(program
  (lexical_declaration
    "const"
    (variable_declarator name: (identifier) @name) @definition.constant))

(program
  (export_statement
    (lexical_declaration
      "const"
      (variable_declarator name: (identifier) @name) @definition.constant)))

(program
  (lexical_declaration
    "let"
    (variable_declarator name: (identifier) @name) @definition.variable))

(program
  (export_statement
    (lexical_declaration
      "let"
      (variable_declarator name: (identifier) @name) @definition.variable)))

(program
  (variable_declaration
    (variable_declarator name: (identifier) @name) @definition.variable))

(program
  (export_statement
    (variable_declaration
      (variable_declarator name: (identifier) @name) @definition.variable)))
