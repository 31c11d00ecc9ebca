"""The currencies this casino accepts, with their ISO 4217 minor units."""

from __future__ import annotations

from flask.views import MethodView

from casino.api.auth import OPERATOR, PLAYER, WITH_SUPPORT, requires
from casino.api.json_body import ApiBlueprint
from casino.api.resources._uow import read
from casino.api.schemas_protection import CurrencySchema
from casino.service import currencies
from casino.service.currencies import CurrencyInfo

blp = ApiBlueprint(
    "currencies", __name__, url_prefix="/api/v1/currencies", description="Currencies"
)


@blp.route("")
class Currencies(MethodView):
    @requires(OPERATOR, PLAYER, scopes=WITH_SUPPORT)
    @blp.response(200, CurrencySchema(many=True))
    @blp.doc(operationId="listCurrencies")
    def get(self) -> list[CurrencyInfo]:
        """Wallets, tables and limits of your operator take these currencies only (anything
        else: 422 ``unsupported_currency``); amounts are integers in their minor units."""
        return read(lambda uow: currencies.supported(uow.currencies))
